/**
 * A tool result as a provider-neutral list of parts: text, or media with its
 * bytes. Each provider's formatter keeps the parts it can carry and turns the
 * others into short text notes.
 *
 * @since 0.2.0
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"

/** @internal */
export type Part =
  | { readonly _tag: "Text"; readonly text: string }
  | {
    readonly _tag: "Media"
    readonly kind: "image" | "audio" | "file"
    readonly mimeType: string
    readonly data: string
    readonly uri?: string
  }

/** Decoded size of base64 data. */
const byteLength = (base64: string): number => {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor(base64.length * 3 / 4) - padding)
}

/** The text note standing for media a provider cannot take in a tool result. @internal */
export const note = (part: Extract<Part, { _tag: "Media" }>): string =>
  `[${part.kind}${part.uri === undefined ? "" : ` ${part.uri}`}: ${part.mimeType}, ${
    byteLength(part.data)
  } bytes, not shown]`

const kindOf = (mimeType: string): "image" | "audio" | "file" =>
  mimeType.startsWith("image/") ? "image" : mimeType.startsWith("audio/") ? "audio" : "file"

const fromBlock = (block: McpSchema.ContentBlock): Part => {
  switch (block.type) {
    case "text":
      return { _tag: "Text", text: block.text }
    case "image":
    case "audio":
      return { _tag: "Media", kind: block.type, mimeType: block.mimeType, data: block.data }
    case "resource_link": {
      const details = [
        block.title === undefined ? undefined : `title: ${block.title}`,
        block.mimeType === undefined ? undefined : `type: ${block.mimeType}`,
        block.size === undefined ? undefined : `size: ${block.size} bytes`,
        block.description
      ].filter((d): d is string => d !== undefined)
      return {
        _tag: "Text",
        text: `[resource link ${block.name}: ${block.uri}]${details.length === 0 ? "" : `\n${details.join("\n")}`}`
      }
    }
    case "resource": {
      const resource = block.resource
      const mimeType = resource.mimeType ?? "application/octet-stream"
      if ("text" in resource) {
        return {
          _tag: "Text",
          text: `[resource ${resource.uri} (${resource.mimeType ?? "text/plain"})]\n${resource.text}`
        }
      }
      return { _tag: "Media", kind: kindOf(mimeType), mimeType, data: resource.blob, uri: resource.uri }
    }
  }
}

/**
 * The parts of a result. `content` is what a model is shown;
 * `structuredContent` becomes a JSON text part only when `content` is empty
 * (servers are asked to mirror it in `content`, and some mirror large media
 * there too, which must not be sent twice).
 *
 * @internal
 */
export const parts = (result: McpSchema.CallToolResult): ReadonlyArray<Part> => {
  const out = result.content.map(fromBlock)
  if (result.structuredContent !== undefined && result.content.length === 0) {
    out.push({ _tag: "Text", text: JSON.stringify(result.structuredContent) })
  }
  return out
}

/** Every part as text, media as notes, joined by blank lines. @internal */
export const text = (parts: ReadonlyArray<Part>): string =>
  parts.map((part) => part._tag === "Text" ? part.text : note(part)).join("\n\n")

/** Marks the text of a failed call for providers without an error flag. @internal */
export const errorPrefix = "Tool error: "

/** Whether a result's content holds media (images, audio, binary resources). @internal */
export const hasMedia = (result: McpSchema.CallToolResult): boolean =>
  result.content.some((block) =>
    block.type === "image" || block.type === "audio" || (block.type === "resource" && "blob" in block.resource)
  )
