/**
 * Answers the server's `sampling/createMessage` requests. Providing this
 * service is what makes the client advertise the `sampling` capability.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as McpError from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly createMessage: (
    params: McpSchema.CreateMessageRequestParams
  ) => Effect.Effect<McpSchema.CreateMessageResult, McpError.ProtocolError>
  /** Advertise `sampling.tools` (the handler understands `tools` / `toolChoice`). */
  readonly tools: boolean
  /** Advertise `sampling.context` (the handler honours `includeContext`). */
  readonly context: boolean
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Sampling extends Context.Tag("@mcp-effect/core/Sampling")<Sampling, Service>() {}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  createMessage: Service["createMessage"],
  options?: { readonly tools?: boolean | undefined; readonly context?: boolean | undefined }
): Layer.Layer<Sampling> =>
  Layer.succeed(Sampling, { createMessage, tools: options?.tools ?? false, context: options?.context ?? false })

/**
 * The capability object this service advertises.
 *
 * @since 0.1.0
 * @category utils
 */
export const capability = (service: Service): NonNullable<McpSchema.ClientCapabilities["sampling"]> => ({
  ...(service.context ? { context: {} } : {}),
  ...(service.tools ? { tools: {} } : {})
})
