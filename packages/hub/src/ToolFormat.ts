/**
 * MCP tools and tool results in the shapes LLM provider APIs take: OpenAI
 * (chat completions and Responses), Anthropic Messages and Gemini. Pure
 * functions: no I/O, and no input makes them throw.
 *
 * Names: pass `{ name, tool }` with the name your registry gave the tool
 * (`ServerRegistry` names are already provider-safe and unique), or a plain
 * MCP tool, whose name is made safe with {@link sanitizeName}. A model calls
 * tools by these names, so map them back with the same table.
 *
 * A tool meant for its MCP App only (`_meta.ui.visibility` without
 * `"model"`) must never reach a model: `ServerRegistry`'s `tools` already
 * leaves such tools out; a list from elsewhere (`McpClient.listTools`) goes
 * through {@link forModel} first.
 *
 * @since 0.2.0
 */
import * as McpApps from "@mcp-effect/core/McpApps"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Anthropic from "./internal/format/anthropic.js"
import * as Gemini from "./internal/format/gemini.js"
import * as GeminiSubset from "./internal/format/geminiSchema.js"
import * as names from "./internal/format/names.js"
import * as OpenAi from "./internal/format/openAi.js"
import * as strict from "./internal/format/openAiStrict.js"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * The tools of a list that may be offered to a model: those a server meant
 * for its MCP App only are left out (`McpApps.isModelVisible`). Map the
 * result with any of the declaration functions below.
 *
 * @since 0.4.0
 * @category filtering
 */
export const forModel = <A extends Input>(inputs: ReadonlyArray<A>): Array<A> =>
  inputs.filter((input) => McpApps.isModelVisible("inputSchema" in input ? input : input.tool))

/**
 * A tool to format: a plain MCP tool, or one with a caller-chosen name (a
 * registry entry such as `ServerRegistry`'s `HubTool` fits).
 *
 * @since 0.2.0
 * @category models
 */
export type Input = McpSchema.Tool | { readonly name: string; readonly tool: McpSchema.Tool }

/**
 * A JSON object (a JSON Schema, an argument map).
 *
 * @since 0.2.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: unknown }

/**
 * A JSON Schema whose root is an object schema, as OpenAI and Anthropic take
 * a tool's parameters.
 *
 * @since 0.3.0
 * @category models
 */
export type ObjectRoot = { readonly type: "object"; readonly [key: string]: unknown }

/**
 * @since 0.2.0
 * @category models
 */
export interface OpenAiOptions {
  /**
   * Ask for strict mode (Structured Outputs) when the tool's schema allows
   * it (default `true`); `false` never asks. See {@link openAiStrictSchema}
   * for the rule.
   */
  readonly strict?: boolean | undefined
}

/**
 * An entry of the chat completions `tools` array.
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAiChatTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description?: string
    readonly parameters: JsonObject
    readonly strict?: true
  }
}

/**
 * A function tool of the Responses API (`strict` is always given, since the
 * API's default is `true`).
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAiResponsesTool {
  readonly type: "function"
  readonly name: string
  readonly description?: string
  readonly parameters: JsonObject
  readonly strict: boolean
}

/**
 * An entry of the Messages API `tools` array.
 *
 * @since 0.2.0
 * @category models
 */
export interface AnthropicTool {
  readonly name: string
  readonly description?: string
  readonly input_schema: ObjectRoot
}

/**
 * Anthropic's tool search tool (a server tool): BM25 over natural-language
 * queries, or Python-style regular expressions.
 *
 * @since 0.4.0
 * @category models
 */
export interface AnthropicToolSearchTool {
  readonly type: "tool_search_tool_bm25_20251119" | "tool_search_tool_regex_20251119"
  readonly name: "tool_search_tool_bm25" | "tool_search_tool_regex"
}

/**
 * A Messages API tool that Claude sees only once its tool search finds it.
 *
 * @since 0.4.0
 * @category models
 */
export interface AnthropicDeferredTool extends AnthropicTool {
  readonly defer_loading?: true
}

/**
 * The Responses API's hosted tool search.
 *
 * @since 0.4.0
 * @category models
 */
export interface OpenAiToolSearch {
  readonly type: "tool_search"
}

/**
 * A Responses function tool whose schema is loaded when tool search finds it.
 *
 * @since 0.4.0
 * @category models
 */
export interface OpenAiResponsesDeferredTool extends OpenAiResponsesTool {
  readonly defer_loading?: true
}

/**
 * A Responses namespace: the model sees its name and description up front,
 * its functions once tool search loads them.
 *
 * @since 0.4.0
 * @category models
 */
export interface OpenAiNamespace {
  readonly type: "namespace"
  readonly name: string
  readonly description: string
  readonly tools: ReadonlyArray<OpenAiResponsesDeferredTool>
}

/**
 * A tool to declare deferred: its name, its server (the namespace it goes
 * in) and the MCP tool. `ServerRegistry`'s `HubTool` fits.
 *
 * @since 0.4.0
 * @category models
 */
export interface DeferredInput {
  readonly name: string
  readonly server?: string | undefined
  readonly tool: McpSchema.Tool
}

/**
 * @since 0.4.0
 * @category models
 */
export interface DeferredOptions {
  /** Names of tools declared up front, never deferred. */
  readonly pinned?: ReadonlyArray<string> | undefined
  /** Per server, the namespace description (OpenAI); default `Tools of the MCP server "<name>".` */
  readonly descriptions?: ReadonlyMap<string, string> | undefined
}

/**
 * A Gemini function declaration with its parameters as JSON Schema
 * (`parametersJsonSchema`), the form the `@google/genai` SDK's
 * `FunctionDeclaration` type takes without a cast (its OpenAPI `Schema`
 * types `type` with the SDK's own `Type` enum).
 *
 * @since 0.3.0
 * @category models
 */
export interface GeminiJsonFunctionDeclaration {
  readonly name: string
  readonly description?: string
  readonly parametersJsonSchema?: JsonObject
}

/**
 * An entry of Gemini's `functionDeclarations`; `parameters` is absent for a
 * tool without arguments.
 *
 * @since 0.2.0
 * @category models
 */
export interface GeminiFunctionDeclaration {
  readonly name: string
  readonly description?: string
  readonly parameters?: GeminiSchema
}

/**
 * A schema in Gemini's OpenAPI 3.0 subset.
 *
 * @since 0.2.0
 * @category models
 */
export interface GeminiSchema {
  readonly type?: GeminiType
  readonly format?: string
  readonly title?: string
  readonly description?: string
  readonly nullable?: boolean
  readonly enum?: ReadonlyArray<string>
  readonly items?: GeminiSchema
  readonly minItems?: number
  readonly maxItems?: number
  readonly properties?: { readonly [name: string]: GeminiSchema }
  readonly required?: ReadonlyArray<string>
  readonly minProperties?: number
  readonly maxProperties?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly anyOf?: ReadonlyArray<GeminiSchema>
}

/**
 * @since 0.2.0
 * @category models
 */
export type GeminiType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT"

/**
 * The chat completions message answering a tool call.
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAiChatToolMessage {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string
}

/**
 * @since 0.2.0
 * @category models
 */
export type OpenAiResponsesOutputPart =
  | { readonly type: "input_text"; readonly text: string }
  | { readonly type: "input_image"; readonly image_url: string }

/**
 * The `output` of a Responses `function_call_output`: text, or parts when
 * the result holds images.
 *
 * @since 0.2.0
 * @category models
 */
export type OpenAiResponsesOutput = string | Array<OpenAiResponsesOutputPart>

/**
 * A Responses input item answering a function call.
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAiResponsesToolOutput {
  readonly type: "function_call_output"
  readonly call_id: string
  readonly output: OpenAiResponsesOutput
}

/**
 * @since 0.2.0
 * @category models
 */
export type AnthropicImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp"

/**
 * A block of an Anthropic `tool_result` (a mutable array's element type, as
 * the SDK's `ToolResultBlockParam` takes it).
 *
 * @since 0.2.0
 * @category models
 */
export type AnthropicContentBlock =
  | { readonly type: "text"; readonly text: string }
  | {
    readonly type: "image"
    readonly source: { readonly type: "base64"; readonly media_type: AnthropicImageType; readonly data: string }
  }

/**
 * The `tool_result` block of a user message answering a `tool_use`.
 *
 * @since 0.2.0
 * @category models
 */
export interface AnthropicToolResult {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: Array<AnthropicContentBlock>
  readonly is_error?: true
}

/**
 * The `response` object of a Gemini `functionResponse`.
 *
 * @since 0.2.0
 * @category models
 */
export type GeminiResponse =
  | { readonly output: unknown }
  | { readonly error: string }

/**
 * A part of the Gemini content answering a function call.
 *
 * @since 0.2.0
 * @category models
 */
export type GeminiPart =
  | {
    readonly functionResponse: { readonly name: string; readonly id?: string; readonly response: GeminiResponse }
  }
  | { readonly inlineData: { readonly mimeType: string; readonly data: string } }

/**
 * The provider shapes this module produces.
 *
 * @since 0.2.0
 * @category models
 */
export type Provider = "openai-chat" | "openai-responses" | "anthropic" | "gemini"

// -----------------------------------------------------------------------------
// names
// -----------------------------------------------------------------------------

/**
 * A name every provider accepts (`^[a-zA-Z0-9_-]{1,64}$`): other characters
 * become `_`, and a name longer than 64 characters is cut and ends with a
 * short hash of the original, so that distinct long names stay distinct.
 * Names that already fit are returned unchanged. Uniqueness across servers is
 * the registry's job.
 *
 * @since 0.2.0
 * @category names
 */
export const sanitizeName: (name: string) => string = names.sanitizeName

/**
 * Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
 *
 * @since 0.2.0
 * @category names
 */
export const isSafeName: (name: string) => boolean = names.isSafeName

// -----------------------------------------------------------------------------
// tools
// -----------------------------------------------------------------------------

/**
 * A tool for the chat completions API. `strict: true` and the strict form of
 * the schema are given only when {@link openAiStrictSchema} allows it;
 * otherwise `parameters` is the tool's `inputSchema`, unchanged unless its
 * root needs fixing (see {@link anthropicTool}).
 *
 * @since 0.2.0
 * @category tools
 */
export const openAiChatTool: (input: Input, options?: OpenAiOptions) => OpenAiChatTool = OpenAi.chatTool

/**
 * A function tool for the Responses API, with the same strict rule as
 * {@link openAiChatTool}.
 *
 * @since 0.2.0
 * @category tools
 */
export const openAiResponsesTool: (input: Input, options?: OpenAiOptions) => OpenAiResponsesTool = OpenAi.responsesTool

/**
 * A tool for the Anthropic Messages API. `input_schema` is the tool's
 * `inputSchema`, unchanged unless its root needs fixing: both Anthropic and
 * OpenAI reject a top-level `anyOf` / `oneOf` / `allOf`, and OpenAI an object
 * root without `properties`. Such a root is flattened into one object (the
 * branches' properties together; required what `allOf` branches require and
 * what every `anyOf` / `oneOf` branch requires) and given `properties: {}`
 * when it has none.
 *
 * @since 0.2.0
 * @category tools
 */
export const anthropicTool: (input: Input) => AnthropicTool = Anthropic.declaration

/**
 * Every tool for the Messages API with Claude's own tool search: the tool
 * search tool first (BM25 by default, `variant: "regex"` for regular
 * expressions), then each tool with `defer_loading: true` unless pinned.
 * Claude searches the tools' names, descriptions and argument names and
 * descriptions server-side and calls what it found by name, so calls come
 * back as ordinary `tool_use` blocks: route them to
 * `ServerRegistry.callTool`. See
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
 * for the models that support it.
 *
 * @since 0.4.0
 * @category tools
 */
export const anthropicDeferredTools: (
  inputs: ReadonlyArray<DeferredInput>,
  options?: DeferredOptions & { readonly variant?: "bm25" | "regex" | undefined }
) => Array<AnthropicToolSearchTool | AnthropicDeferredTool> = Anthropic.deferred

/**
 * Every tool for the Responses API with its hosted tool search:
 * `{ type: "tool_search" }` first, pinned tools as plain functions, then
 * one namespace per server (its name made provider-safe, its description
 * from `descriptions`) holding the server's tools with
 * `defer_loading: true`. The model sees namespace names and descriptions up
 * front and loads functions as it searches; a function call names the
 * function by its registry name, unique across namespaces. See
 * https://developers.openai.com/api/docs/guides/tools-tool-search (which
 * models support it, and why namespaces are preferred).
 *
 * @since 0.4.0
 * @category tools
 */
export const openAiResponsesDeferredTools: (
  inputs: ReadonlyArray<DeferredInput>,
  options?: DeferredOptions & OpenAiOptions
) => Array<OpenAiToolSearch | OpenAiNamespace | OpenAiResponsesDeferredTool> = OpenAi.responsesDeferred

/**
 * A Gemini function declaration, its schema converted with
 * {@link geminiSchema}.
 *
 * @since 0.2.0
 * @category tools
 */
export const geminiFunctionDeclaration: (input: Input) => GeminiFunctionDeclaration = Gemini.declaration

/**
 * The tool as a Gemini function declaration with `parametersJsonSchema`
 * (https://ai.google.dev/api/caching#FunctionDeclaration): the input schema
 * with its root flattened into one object as for OpenAI and Anthropic; a tool
 * without arguments gets none. The name follows the same rule as
 * `geminiFunctionDeclaration`'s. Assignable to the `@google/genai` SDK's
 * `FunctionDeclaration`.
 *
 * @since 0.3.0
 * @category tools
 */
export const geminiJsonFunctionDeclaration: (input: Input) => GeminiJsonFunctionDeclaration = Gemini.jsonDeclaration

/**
 * A registry name as Gemini takes it (it must start with a letter or an
 * underscore, https://ai.google.dev/api/caching#FunctionDeclaration: any
 * other first character gets a `_` in front); what the Gemini declarations
 * use. Map a call back by comparing with `geminiName(name)` of your names.
 *
 * @since 0.3.0
 * @category names
 */
export const geminiName: (name: string) => string = Gemini.nameOf

/**
 * The `args` of a Gemini `functionCall` for a tool declared with
 * {@link geminiFunctionDeclaration}, as the tool's server takes them. A
 * parameter whose name Gemini refuses (it holds a character other than a
 * letter, digit or underscore, or starts with a digit, like `file-path` or
 * `2fa`) is declared under a name Gemini takes (`file_path`, `_2fa`, with a
 * suffix when that name is taken); this gives each one its server's name
 * back, at any depth. Other arguments are returned as they are.
 *
 * @example
 * import { ToolFormat } from "@mcp-effect/hub"
 *
 * const tool = { name: "fetch", inputSchema: { type: "object" as const, properties: { "max-length": { type: "number" } } } }
 * ToolFormat.geminiFunctionDeclaration(tool).parameters?.properties // { max_length: { type: "NUMBER" } }
 * ToolFormat.geminiArguments(tool, { max_length: 10 }) // { "max-length": 10 }
 *
 * @since 0.5.0
 * @category tools
 */
export const geminiArguments: (input: Input, args: unknown) => unknown = Gemini.callArguments

// -----------------------------------------------------------------------------
// schemas
// -----------------------------------------------------------------------------

/**
 * The schema to send with OpenAI `strict: true`, or `undefined` when strict
 * mode would change what the tool accepts. The rule: the root is an object;
 * every object schema declares `properties`, lists them all in `required`
 * and has `additionalProperties: false` (filled in when absent); only the
 * keywords OpenAI supports appear (annotations such as `$schema` and
 * `default` are dropped); at most 10 levels, 5000 properties, 1000 enum
 * values. Optional properties are never made required, since the model
 * would then have to invent values for them.
 *
 * @since 0.2.0
 * @category schemas
 */
export const openAiStrictSchema: (schema: unknown) => JsonObject | undefined = strict.strictSchema

/**
 * Any JSON Schema (any JSON value, in fact) as a schema inside Gemini's
 * OpenAPI subset: local `$ref`s inlined (recursion cut to a shallow node),
 * `allOf` merged, `null` branches and `type` arrays turned into `nullable`,
 * unions collapsed where possible, enums kept only as strings (other values
 * move to the description), unsupported keywords dropped. Never throws.
 *
 * @since 0.2.0
 * @category schemas
 */
export const geminiSchema: (schema: unknown) => GeminiSchema = GeminiSubset.schema

/**
 * The `parameters` of a Gemini function declaration: an `OBJECT` with
 * properties, or `undefined` for a tool without arguments.
 *
 * @since 0.2.0
 * @category schemas
 */
export const geminiParameters: (schema: unknown) => GeminiSchema | undefined = GeminiSubset.parameters

// -----------------------------------------------------------------------------
// results
// -----------------------------------------------------------------------------

/**
 * The chat completions `tool` message for a result. Chat tool messages carry
 * text only: images, audio and binary resources become short notes
 * (`[image: image/png, 68 bytes, not shown]`), embedded text resources and
 * resource links are written out, `structuredContent` is sent as JSON when
 * `content` is empty, and a failed call starts with `Tool error: `.
 *
 * @since 0.2.0
 * @category results
 */
export const openAiChatResult: (toolCallId: string, result: McpSchema.CallToolResult) => OpenAiChatToolMessage =
  OpenAi.chatResult

/**
 * The content of {@link openAiChatResult} alone.
 *
 * @since 0.2.0
 * @category results
 */
export const openAiChatContent: (result: McpSchema.CallToolResult) => string = OpenAi.chatContent

/**
 * The Responses `function_call_output` for a result: a string, or
 * `input_text` / `input_image` parts when the result holds images (audio and
 * other binaries as notes).
 *
 * @since 0.2.0
 * @category results
 */
export const openAiResponsesResult: (callId: string, result: McpSchema.CallToolResult) => OpenAiResponsesToolOutput =
  OpenAi.responsesResult

/**
 * The `output` of {@link openAiResponsesResult} alone.
 *
 * @since 0.2.0
 * @category results
 */
export const openAiResponsesOutput: (result: McpSchema.CallToolResult) => OpenAiResponsesOutput = OpenAi.responsesOutput

/**
 * The Anthropic `tool_result` block: text and image blocks (JPEG, PNG, GIF,
 * WebP; other media as notes) and `is_error: true` for a failed call.
 *
 * @since 0.2.0
 * @category results
 */
export const anthropicResult: (toolUseId: string, result: McpSchema.CallToolResult) => AnthropicToolResult =
  Anthropic.result

/**
 * The `content` of {@link anthropicResult} alone.
 *
 * @since 0.2.0
 * @category results
 */
export const anthropicContent: (result: McpSchema.CallToolResult) => ReadonlyArray<AnthropicContentBlock> =
  Anthropic.content

/**
 * The parts answering a Gemini function call: a `functionResponse` (named
 * like the call, with its `id` when given) whose `response` is
 * `{ output: structuredContent }` (when the result has no media),
 * `{ output: text }` or, for a failed call, `{ error: text }`; then the
 * result's images and audio as `inlineData` parts.
 *
 * @since 0.2.0
 * @category results
 */
export const geminiResult: (
  name: string,
  result: McpSchema.CallToolResult,
  options?: { readonly id?: string | undefined }
) => ReadonlyArray<GeminiPart> = Gemini.result

/**
 * The `response` of {@link geminiResult}'s `functionResponse` alone.
 *
 * @since 0.2.0
 * @category results
 */
export const geminiResponse: (result: McpSchema.CallToolResult) => GeminiResponse = Gemini.response

/**
 * What goes back to a model for a result, by provider, without the call id
 * the provider's message adds: the chat content string, the Responses
 * `output`, the Anthropic content blocks or the Gemini `response`.
 *
 * @since 0.2.0
 * @category results
 */
export const resultPayload = (provider: Provider, result: McpSchema.CallToolResult): unknown => {
  switch (provider) {
    case "openai-chat":
      return OpenAi.chatContent(result)
    case "openai-responses":
      return OpenAi.responsesOutput(result)
    case "anthropic":
      return Anthropic.content(result)
    case "gemini":
      return Gemini.response(result)
  }
}
