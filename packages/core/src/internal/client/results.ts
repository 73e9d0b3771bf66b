/**
 * The result schema of each method the client decodes, keyed by the method
 * table's names: a client method's decoder is read from here by its method
 * name, never paired with a schema by hand. (Apart from the method table so
 * that a session that decodes no result bundles no result schema.)
 */
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as ClientSession from "../../ClientSession.js"
import type * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import { decodeResult } from "../engine/decode.js"
import type * as Methods from "../methods.js"
import * as ToolList from "./toolList.js"

/**
 * The result schemas.
 *
 * @internal
 */
export const results = {
  "tools/list": ToolList.ListToolsPage,
  "tools/call": McpSchema.CallToolResult,
  "resources/list": McpSchema.ListResourcesResult,
  "resources/templates/list": McpSchema.ListResourceTemplatesResult,
  "resources/read": McpSchema.ReadResourceResult,
  "prompts/list": McpSchema.ListPromptsResult,
  "prompts/get": McpSchema.GetPromptResult,
  "completion/complete": McpSchema.CompleteResult,
  "tasks/get": McpSchema.GetTaskResult,
  "tasks/list": McpSchema.ListTasksResult,
  "tasks/cancel": McpSchema.CancelTaskResult,
  "tasks/result": McpSchema.CallToolResult
} as const satisfies { readonly [M in Methods.Name]?: Schema.Schema.Any }

/** The same table, each schema typed by its key (what `request` reads). */
const schemas: { readonly [M in Decoded]: Schema.Schema<Result<M>, Schema.Schema.Encoded<(typeof results)[M]>> } =
  results

/**
 * A method whose result the client decodes.
 *
 * @internal
 */
export type Decoded = keyof typeof results

/**
 * The result of `M`, as decoded.
 *
 * @internal
 */
export type Result<M extends Decoded> = Schema.Schema.Type<(typeof results)[M]>

/**
 * A request of `method` whose result is decoded with the method's schema
 * (see `decodeResult` for `then` and `key`).
 *
 * @internal
 */
export type Request<M extends Decoded> = (
  session: ClientSession.Service,
  params?: Record<string, unknown>,
  options?: ClientSession.RequestOptions,
  then?: (key: string, result: Result<M>) => Effect.Effect<Result<M>, McpError.McpClientError>,
  key?: string
) => Effect.Effect<Result<M>, McpError.McpClientError>

/**
 * The decoding request of `method`.
 *
 * @internal
 */
export const request = <M extends Decoded>(method: M): Request<M> => {
  const decode = decodeResult(schemas[method])
  return (session, params, options, then, key) => decode(session, method, params, options, then, key)
}
