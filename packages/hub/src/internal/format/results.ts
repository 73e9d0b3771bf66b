/**
 * MCP tool results as each provider's tool-result message.
 *
 * @since 0.2.0
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type {
  AnthropicContentBlock,
  AnthropicImageType,
  AnthropicToolResult,
  GeminiPart,
  GeminiResponse,
  OpenAiChatToolMessage,
  OpenAiResponsesOutput,
  OpenAiResponsesOutputPart,
  OpenAiResponsesToolOutput
} from "../../ToolFormat.js"
import { errorPrefix, hasMedia, note, type Part, parts, text } from "./content.js"

// --- OpenAI chat completions -------------------------------------------------

/** @internal */
export const openAiChatContent = (result: McpSchema.CallToolResult): string =>
  (result.isError === true ? errorPrefix : "") + text(parts(result))

/** @internal */
export const openAiChatResult = (toolCallId: string, result: McpSchema.CallToolResult): OpenAiChatToolMessage => ({
  role: "tool",
  tool_call_id: toolCallId,
  content: openAiChatContent(result)
})

// --- OpenAI Responses --------------------------------------------------------

const isImage = (part: Part): part is Extract<Part, { _tag: "Media" }> => part._tag === "Media" && part.kind === "image"

/** @internal */
export const openAiResponsesOutput = (result: McpSchema.CallToolResult): OpenAiResponsesOutput => {
  const all = parts(result)
  const prefix = result.isError === true ? errorPrefix : ""
  if (!all.some(isImage)) return prefix + text(all)
  const out: Array<OpenAiResponsesOutputPart> = all.map((part) =>
    isImage(part)
      ? { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}` }
      : { type: "input_text", text: part._tag === "Text" ? part.text : note(part) }
  )
  return prefix === "" ? out : [{ type: "input_text", text: prefix.trim() }, ...out]
}

/** @internal */
export const openAiResponsesResult = (callId: string, result: McpSchema.CallToolResult): OpenAiResponsesToolOutput => ({
  type: "function_call_output",
  call_id: callId,
  output: openAiResponsesOutput(result)
})

// --- Anthropic ---------------------------------------------------------------

const anthropicImageTypes: ReadonlyArray<AnthropicImageType> = ["image/jpeg", "image/png", "image/gif", "image/webp"]
const anthropicImageType = (mimeType: string): AnthropicImageType | undefined =>
  anthropicImageTypes.find((type) => type === mimeType)

/** @internal */
export const anthropicContent = (result: McpSchema.CallToolResult): Array<AnthropicContentBlock> =>
  parts(result).map((part): AnthropicContentBlock => {
    if (part._tag === "Text") return { type: "text", text: part.text }
    const media_type = part.kind === "image" ? anthropicImageType(part.mimeType) : undefined
    return media_type !== undefined
      ? { type: "image", source: { type: "base64", media_type, data: part.data } }
      : { type: "text", text: note(part) }
  })

/** @internal */
export const anthropicResult = (toolUseId: string, result: McpSchema.CallToolResult): AnthropicToolResult => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content: anthropicContent(result),
  ...(result.isError === true ? { is_error: true } : {})
})

// --- Gemini ------------------------------------------------------------------

/**
 * `{ output }` for a result (its structured content when it has some and no
 * media, its text otherwise), `{ error }` for a failed call.
 *
 * @internal
 */
export const geminiResponse = (result: McpSchema.CallToolResult): GeminiResponse => {
  if (result.isError === true) return { error: text(parts(result)) }
  if (result.structuredContent !== undefined && !hasMedia(result)) return { output: result.structuredContent }
  return { output: text(parts(result)) }
}

/** @internal */
export const geminiResult = (
  name: string,
  result: McpSchema.CallToolResult,
  options?: { readonly id?: string | undefined }
): ReadonlyArray<GeminiPart> => {
  const media = parts(result).flatMap((part) =>
    part._tag === "Media" && part.kind !== "file" ? [{ inlineData: { mimeType: part.mimeType, data: part.data } }] : []
  )
  return [
    {
      functionResponse: {
        name,
        ...(options?.id === undefined ? {} : { id: options.id }),
        response: geminiResponse(result)
      }
    },
    ...media
  ]
}
