/**
 * The request metadata headers of Streamable HTTP in protocol 2026-07-28:
 * `Mcp-Method` and `Mcp-Name` mirror the body, and `Mcp-Param-{Name}` mirror
 * the arguments of a tool whose `inputSchema` marks them with `x-mcp-header`.
 *
 * The HTTP transport provides a `RequestHeaders` service beside
 * `McpTransport`; the client finds it and passes every tool list through
 * `register`, which drops the tools whose annotations are invalid (with a
 * warning, as the revision asks) and remembers the headers of the others.
 * The transport then asks `headersFor` for each message it posts. Over other
 * transports there is no such service and tools are listed as they are.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as internal from "./internal/wire/mcpHeaders.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * One `x-mcp-header` annotation: the header is `Mcp-Param-{name}`, its
 * value the argument at `path` (a chain of `properties` keys).
 *
 * @since 0.2.0
 * @category models
 */
export type ParamHeader = internal.ParamHeader

/**
 * The annotations of a tool, or why the tool is invalid.
 *
 * @since 0.2.0
 * @category models
 */
export type Declarations = internal.Declarations

/**
 * Reads the `x-mcp-header` annotations of an `inputSchema`. `Invalid` when
 * one is empty, not an HTTP header token, repeated case-insensitively, on a
 * property whose type is not string, integer or boolean, or placed anywhere
 * but on a property reached from the root through `properties` only.
 *
 * @example
 * ```ts
 * import { RequestHeaders } from "@mcp-effect/core"
 *
 * const declared = RequestHeaders.declarations({
 *   type: "object",
 *   properties: { region: { type: "string", "x-mcp-header": "Region" } }
 * })
 * // { _tag: "Valid", headers: [{ name: "Region", path: ["region"], types: ["string"] }] }
 * ```
 *
 * @since 0.2.0
 * @category utils
 */
export const declarations: (inputSchema: unknown) => Declarations = internal.declarations

/**
 * The `Mcp-Param-*` headers (lower-case names) of a call's arguments. A
 * value that is absent, `null` or not of a declared type gives no header.
 *
 * @since 0.2.0
 * @category utils
 */
export const paramHeaders: (headers: ReadonlyArray<ParamHeader>, args: unknown) => Record<string, string> =
  internal.paramHeaders

/**
 * A header value for a string: as is when it is visible ASCII (spaces and
 * tabs inside allowed), otherwise `=?base64?{Base64 of its UTF-8}?=`.
 *
 * @since 0.2.0
 * @category utils
 */
export const encodeValue: (value: string) => string = internal.encodeValue

/**
 * `Mcp-Method`, and `Mcp-Name` for `tools/call`, `prompts/get`
 * (`params.name`), `resources/read` (`params.uri`) and, for the tasks
 * extension, `tasks/get` / `tasks/update` / `tasks/cancel` (`params.taskId`);
 * lower-case names.
 *
 * @since 0.2.0
 * @category utils
 */
export const standardHeaders: (method: string, params: unknown) => Record<string, string> = internal.standardHeaders

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Keeps the tools whose `x-mcp-header` annotations are valid and
   * remembers their headers; logs a warning naming each tool dropped and
   * why. Give it the whole list (all pages): it replaces the previous one.
   */
  readonly register: (tools: ReadonlyArray<McpSchema.Tool>) => Effect.Effect<ReadonlyArray<McpSchema.Tool>>
  /** Every `Mcp-*` header of a message (lower-case names), `Mcp-Param-*` included for a registered tool. */
  readonly headersFor: (method: string, params: unknown) => Record<string, string>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class RequestHeaders extends Context.Tag("@mcp-effect/core/RequestHeaders")<RequestHeaders, Service>() {}

/**
 * A service for one server. It holds the headers of the tools of the last
 * list registered, nothing more.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<Service> = /* @__PURE__ */ Effect.sync(() => {
  const byTool = new Map<string, ReadonlyArray<ParamHeader>>()
  return {
    register: (tools) =>
      Effect.suspend(() => {
        const kept: Array<McpSchema.Tool> = []
        const dropped: Array<string> = []
        byTool.clear()
        for (const tool of tools) {
          const declared = declarations(tool.inputSchema)
          if (declared._tag === "Invalid") {
            dropped.push(`${tool.name}: ${declared.reason}`)
            continue
          }
          if (declared.headers.length > 0) byTool.set(tool.name, declared.headers)
          kept.push(tool)
        }
        return Effect.as(
          Effect.forEach(dropped, (reason) => Effect.logWarning(`mcp: tool left out of the list (${reason})`), {
            discard: true
          }),
          kept
        )
      }),
    headersFor: (method, params) => {
      const headers = standardHeaders(method, params)
      if (method !== "tools/call" || typeof params !== "object" || params === null) return headers
      const { arguments: args, name } = params as { readonly name?: unknown; readonly arguments?: unknown }
      const declared = typeof name === "string" ? byTool.get(name) : undefined
      return declared === undefined ? headers : { ...headers, ...paramHeaders(declared, args) }
    }
  }
})
