/**
 * MCP tools as an `@effect/ai` toolkit.
 *
 * @since 0.2.0
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as McpApps from "@mcp-effect/core/McpApps"
import type * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { McpTool, McpToolkit, Options, Parameters, Result, Source, SourceTool } from "../McpToolkit.js"
import * as ToolFormat from "../ToolFormat.js"
import type * as ToolSearch from "../ToolSearch.js"
import { sanitizeName } from "./format/names.js"
import { describe } from "./format/tool.js"

const parameters: Parameters = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const CallToolResultFromSelf = Schema.declare(
  (u: unknown): u is McpSchema.CallToolResult => Predicate.isRecord(u) && Array.isArray(u.content),
  { identifier: "CallToolResult" }
)

/**
 * A result as its model-facing payload; decoding a payload back gives a
 * text-only result (payloads are what goes to the model, not a full copy).
 */
const resultSchema = (output: ToolFormat.Provider): Result =>
  Schema.transform(Schema.Unknown, CallToolResultFromSelf, {
    strict: true,
    decode: (payload): McpSchema.CallToolResult => ({
      content: [{ type: "text", text: typeof payload === "string" ? payload : JSON.stringify(payload) ?? "" }]
    }),
    encode: (result) => ToolFormat.resultPayload(output, result)
  })

const toTool = (entry: SourceTool, result: Result, options: Options | undefined): McpTool => {
  const jsonSchema = options?.parameters?.(entry) ?? entry.tool.inputSchema
  const annotations = entry.tool.annotations
  let tool: McpTool = Tool.make(sanitizeName(entry.name), {
    description: describe(entry.tool),
    success: result,
    failure: result,
    failureMode: "return"
  }).setParameters(parameters.annotations({ jsonSchema })) as McpTool
  const title = entry.tool.title ?? annotations?.title
  if (title !== undefined) tool = tool.annotate(Tool.Title, title)
  if (annotations?.readOnlyHint !== undefined) tool = tool.annotate(Tool.Readonly, annotations.readOnlyHint)
  if (annotations?.destructiveHint !== undefined) tool = tool.annotate(Tool.Destructive, annotations.destructiveHint)
  if (annotations?.idempotentHint !== undefined) tool = tool.annotate(Tool.Idempotent, annotations.idempotentHint)
  if (annotations?.openWorldHint !== undefined) tool = tool.annotate(Tool.OpenWorld, annotations.openWorldHint)
  return tool
}

/** The tools a model may be given: never one meant for its MCP App only. */
const offered = (tools: ReadonlyArray<SourceTool>) => tools.filter((entry) => McpApps.isModelVisible(entry.tool))

/** @internal */
export const toolkit = (tools: ReadonlyArray<SourceTool>, options?: Options): McpToolkit => {
  const result = resultSchema(options?.output ?? "openai-chat")
  return Toolkit.make(...offered(tools).map((entry) => toTool(entry, result, options))) as unknown as McpToolkit
}

const failedCall = (error: unknown): McpSchema.CallToolResult => {
  const message = Predicate.hasProperty(error, "message") && typeof error.message === "string"
    ? error.message
    : String(error)
  return { content: [{ type: "text", text: message }], isError: true }
}

/** @internal */
export const handlers = <E>(tools: ReadonlyArray<SourceTool>, source: Source<E>) =>
  Object.fromEntries(
    offered(tools).map((entry) => [
      sanitizeName(entry.name),
      (params: { readonly [key: string]: unknown }) =>
        source.callTool(entry.name, params).pipe(
          Effect.catchAll((error) => Effect.succeed(failedCall(error))),
          Effect.flatMap((result) => result.isError === true ? Effect.fail(result) : Effect.succeed(result))
        )
    ])
  )

/** @internal */
export const layer = <E>(
  self: McpToolkit,
  tools: ReadonlyArray<SourceTool>,
  source: Source<E>
): Layer.Layer<Tool.Handler<string>> => self.toLayer(handlers(tools, source))

/** @internal */
export const make = <E>(source: Source<E>, options?: Options) =>
  Effect.map(source.tools.get, (tools) => {
    const self = toolkit(tools, options)
    return { toolkit: self, layer: layer(self, tools, source) }
  })

/** @internal */
export const withHandler = <E>(
  source: Source<E>,
  options?: Options
): Effect.Effect<Toolkit.WithHandler<Record<string, McpTool>>> =>
  Effect.flatMap(source.tools.get, (tools) => {
    const self = toolkit(tools, options)
    return Effect.flatMap(self.toContext(handlers(tools, source)), (context) => Effect.provide(self, context))
  })

/** @internal */
export const fromClient = (
  client: McpClient.McpClient["Type"],
  server?: string
): Source<McpError.McpClientError> => ({
  tools: {
    get: Effect.map(client.tools.get, (tools) => tools.map((tool) => ({ name: tool.name, server, tool })))
  },
  callTool: (name, args) => client.callTool({ name, arguments: args })
})

/** @internal */
export const fromConversation = (
  conversation: ToolSearch.Conversation
): Source<Effect.Effect.Error<ReturnType<ToolSearch.Conversation["callTool"]>>> => ({
  tools: {
    // a store that cannot be read leaves the model the meta-tool (and the search still works)
    get: Effect.catchAll(conversation.tools, () =>
      Effect.zipRight(
        Effect.logWarning("tool search: the activated tools could not be read; offering the search alone"),
        Effect.map(conversation.searchTool, (tool): ReadonlyArray<SourceTool> => [{ name: tool.name, tool }])
      ))
  },
  callTool: (name, args) => conversation.callTool(name, args)
})
