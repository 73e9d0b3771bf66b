/**
 * Anthropic: the tool declaration, the tool result (images Anthropic takes
 * as images, other media as a note), and deferred loading (the tool search
 * tool and `defer_loading`).
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type {
  AnthropicContentBlock,
  AnthropicDeferredTool,
  AnthropicImageType,
  AnthropicTool,
  AnthropicToolResult,
  AnthropicToolSearchTool,
  DeferredInput,
  DeferredOptions,
  Input
} from "../../ToolFormat.js"
import { note, parts } from "./content.js"
import { rootObject } from "./rootObject.js"
import { descriptionOf, split } from "./tool.js"

/** @internal */
export const declaration = (input: Input): AnthropicTool => {
  const { name, tool } = split(input)
  return { name, ...descriptionOf(tool), input_schema: rootObject(tool.inputSchema) }
}

const anthropicImageTypes: ReadonlyArray<AnthropicImageType> = ["image/jpeg", "image/png", "image/gif", "image/webp"]
const anthropicImageType = (mimeType: string): AnthropicImageType | undefined =>
  anthropicImageTypes.find((type) => type === mimeType)

/** @internal */
export const content = (result: McpSchema.CallToolResult): Array<AnthropicContentBlock> =>
  parts(result).map((part): AnthropicContentBlock => {
    if (part._tag === "Text") return { type: "text", text: part.text }
    const media_type = part.kind === "image" ? anthropicImageType(part.mimeType) : undefined
    return media_type !== undefined
      ? { type: "image", source: { type: "base64", media_type, data: part.data } }
      : { type: "text", text: note(part) }
  })

/** @internal */
export const result = (toolUseId: string, result: McpSchema.CallToolResult): AnthropicToolResult => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content: content(result),
  ...(result.isError === true ? { is_error: true } : {})
})

/** @internal */
export const deferred = (
  inputs: ReadonlyArray<DeferredInput>,
  options?: DeferredOptions & { readonly variant?: "bm25" | "regex" | undefined }
): Array<AnthropicToolSearchTool | AnthropicDeferredTool> => {
  const pinned = new Set(options?.pinned ?? [])
  const search: AnthropicToolSearchTool = options?.variant === "regex"
    ? { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }
    : { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }
  return [
    search,
    ...inputs.map((input): AnthropicDeferredTool => {
      const declared = declaration(input)
      return pinned.has(input.name) ? declared : { ...declared, defer_loading: true }
    })
  ]
}
