/**
 * MCP tools as an `@effect/ai` (0.37, Effect 3) `Toolkit`, for any source of
 * named tools with a `callTool`: `ServerRegistry` is one, and so is a single
 * `McpClient` with a few lines of glue. Every handler calls through the
 * source's `callTool`, so the approval policy and the call log apply to calls
 * the model makes.
 *
 * Each tool's parameters are the MCP `inputSchema` as given (an annotation on
 * an open record schema: `Tool.getJsonSchema` returns it unchanged, and the
 * server validates the arguments). Results go back to the model in the shape
 * chosen with `output` (see {@link Options}). A result with `isError: true`
 * and a failed call (for example `ApprovalDenied`) are returned to the model
 * as tool failures (`isFailure: true`), never as errors of the generation.
 *
 * @since 0.2.0
 */
import type * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import type * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as internal from "./internal/toolkit.js"
import type * as ToolFormat from "./ToolFormat.js"
import type * as ToolSearch from "./ToolSearch.js"

/**
 * A tool of a source: the unique, provider-safe name models call it by, the
 * server it comes from, and the MCP tool. `ServerRegistry`'s `HubTool` fits.
 *
 * @since 0.2.0
 * @category models
 */
export interface SourceTool {
  readonly name: string
  readonly server?: string | undefined
  readonly tool: McpSchema.Tool
}

/**
 * Where tools come from and where calls go: `tools` is read when a toolkit
 * is built (a `Subscribable` fits), `callTool` receives the name from
 * `tools` and the model's arguments.
 *
 * @since 0.2.0
 * @category models
 */
export interface Source<E> {
  readonly tools: { readonly get: Effect.Effect<ReadonlyArray<SourceTool>> }
  callTool(name: string, args: McpSchema.JsonObject): Effect.Effect<McpSchema.CallToolResult, E>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * The shape results take on their way back to the model (the tool call's
   * encoded result), as {@link ToolFormat.resultPayload} gives it: text for
   * `"openai-chat"` (the default), the Responses `output`, Anthropic content
   * blocks or a Gemini `response` object.
   */
  readonly output?: ToolFormat.Provider | undefined
  /**
   * The JSON Schema to declare for a tool, when the provider needs something
   * other than the MCP `inputSchema` (for example
   * `(t) => ToolFormat.openAiStrictSchema(t.tool.inputSchema) ?? t.tool.inputSchema`).
   */
  readonly parameters?: ((tool: SourceTool) => ToolFormat.JsonObject) | undefined
}

/**
 * The parameters schema of every MCP tool: any JSON object, annotated with
 * the tool's JSON Schema.
 *
 * @since 0.2.0
 * @category models
 */
export type Parameters = Schema.TypeLiteral<{}, readonly [Schema.Record$<typeof Schema.String, typeof Schema.Unknown>]>

/**
 * The result schema: an MCP `CallToolResult` whose encoded form is the
 * model-facing payload.
 *
 * @since 0.2.0
 * @category models
 */
export type Result = Schema.Schema<McpSchema.CallToolResult, unknown>

/**
 * One MCP tool as an `@effect/ai` tool.
 *
 * @since 0.2.0
 * @category models
 */
export type McpTool = Tool.Tool<string, {
  readonly parameters: Parameters
  readonly success: Result
  readonly failure: Result
  readonly failureMode: "return"
}>

/**
 * @since 0.2.0
 * @category models
 */
export type McpToolkit = Toolkit.Toolkit<Record<string, McpTool>>

/**
 * The toolkit for a list of tools (no handlers yet). Names are made
 * provider-safe with `ToolFormat.sanitizeName`; they should already be
 * unique, as a registry's are.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toolkit: (tools: ReadonlyArray<SourceTool>, options?: Options) => McpToolkit = internal.toolkit

/**
 * The handlers Layer for a toolkit built from `tools`: each handler calls
 * `source.callTool` with the tool's source name.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: <E>(
  toolkit: McpToolkit,
  tools: ReadonlyArray<SourceTool>,
  source: Source<E>
) => Layer.Layer<Tool.Handler<string>> = internal.layer

/**
 * The source's current tools as a toolkit and its handlers Layer.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: <E>(
  source: Source<E>,
  options?: Options
) => Effect.Effect<{ readonly toolkit: McpToolkit; readonly layer: Layer.Layer<Tool.Handler<string>> }> = internal.make

/**
 * The source's current tools, with handlers, built afresh each time the
 * effect runs: pass it as `toolkit` to `LanguageModel.generateText` /
 * `streamText` and every request sees the tools as they are then.
 *
 * @since 0.2.0
 * @category constructors
 */
export const withHandler: <E>(
  source: Source<E>,
  options?: Options
) => Effect.Effect<Toolkit.WithHandler<Record<string, McpTool>>> = internal.withHandler

/**
 * One client as a source: its tools under their MCP names (made
 * provider-safe in the toolkit) and its `callTool`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromClient: (client: McpClient.McpClient["Type"], server?: string) => Source<McpError.McpClientError> =
  internal.fromClient

/**
 * A tool search conversation (`ToolSearch.conversation`) as a source: in
 * `"deferred"` mode its tools are the `search_tools` meta-tool, the pinned
 * tools and the tools activated so far, and a `search_tools` call activates
 * the tools it finds, so `withHandler` over this source (built afresh for
 * each request) gives the model what it found on its next turn. Every other
 * call goes to the registry's `callTool` (approval policy, call log).
 *
 * @since 0.4.0
 * @category constructors
 */
export const fromConversation: (
  conversation: ToolSearch.Conversation
) => Source<Effect.Effect.Error<ReturnType<ToolSearch.Conversation["callTool"]>>> = internal.fromConversation
