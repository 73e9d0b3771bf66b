/**
 * MCP tool definitions as each provider's tool declaration.
 *
 * @since 0.2.0
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type {
  AnthropicTool,
  GeminiFunctionDeclaration,
  GeminiJsonFunctionDeclaration,
  Input,
  OpenAiChatTool,
  OpenAiOptions,
  OpenAiResponsesTool
} from "../../ToolFormat.js"
import * as Gemini from "./gemini.js"
import { sanitizeName } from "./names.js"
import { strictSchema } from "./openAiStrict.js"
import { rootObject } from "./rootObject.js"

const split = (input: Input): { readonly name: string; readonly tool: McpSchema.Tool } =>
  "inputSchema" in input
    ? { name: sanitizeName(input.name), tool: input }
    : { name: sanitizeName(input.name), tool: input.tool }

/** What a model is told a tool does: its description, else its title. @internal */
export const describe = (tool: McpSchema.Tool): string | undefined =>
  tool.description ?? tool.title ?? tool.annotations?.title

const descriptionOf = (tool: McpSchema.Tool): { readonly description?: string } => {
  const description = describe(tool)
  return description === undefined ? {} : { description }
}

const parametersFor = (tool: McpSchema.Tool, options: OpenAiOptions | undefined) => {
  const strict = options?.strict === false ? undefined : strictSchema(tool.inputSchema)
  return strict === undefined
    ? { parameters: rootObject(tool.inputSchema), strict: false }
    : { parameters: strict, strict: true }
}

/** @internal */
export const openAiChat = (input: Input, options?: OpenAiOptions): OpenAiChatTool => {
  const { name, tool } = split(input)
  const { parameters, strict } = parametersFor(tool, options)
  return {
    type: "function",
    function: { name, ...descriptionOf(tool), parameters, ...(strict ? { strict: true } : {}) }
  }
}

/** @internal */
export const openAiResponses = (input: Input, options?: OpenAiOptions): OpenAiResponsesTool => {
  const { name, tool } = split(input)
  const { parameters, strict } = parametersFor(tool, options)
  return { type: "function", name, ...descriptionOf(tool), parameters, strict }
}

/** @internal */
export const anthropic = (input: Input): AnthropicTool => {
  const { name, tool } = split(input)
  return { name, ...descriptionOf(tool), input_schema: rootObject(tool.inputSchema) }
}

/**
 * A name as Gemini takes it: it must start with a letter or an underscore
 * (https://ai.google.dev/api/caching#FunctionDeclaration), so any other
 * first character gets a `_` in front. @internal
 */
export const geminiName = (name: string): string => /^[A-Za-z_]/.test(name) ? name : `_${name}`.slice(0, 64)

/** @internal */
export const gemini = (input: Input): GeminiFunctionDeclaration => {
  const { name, tool } = split(input)
  const parameters = Gemini.parameters(tool.inputSchema)
  return { name: geminiName(name), ...descriptionOf(tool), ...(parameters === undefined ? {} : { parameters }) }
}

/** @internal */
export const geminiJson = (input: Input): GeminiJsonFunctionDeclaration => {
  const { name, tool } = split(input)
  const root = rootObject(tool.inputSchema)
  const properties = root.properties
  const empty = typeof properties !== "object" || properties === null || Object.keys(properties).length === 0
  return { name: geminiName(name), ...descriptionOf(tool), ...(empty ? {} : { parametersJsonSchema: root }) }
}
