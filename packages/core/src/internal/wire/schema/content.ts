/**
 * Content blocks carried by tool results, prompt messages and sampling.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Annotations, JsonObject, Meta } from "./common.js"
import { Resource, ResourceContents } from "./resources.js"

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TextContent = typeof TextContent.Type

/**
 * A base64-encoded image.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ImageContent = typeof ImageContent.Type

/**
 * Base64-encoded audio.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type AudioContent = typeof AudioContent.Type

/**
 * A link to a resource (which need not appear in `resources/list`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  ...Resource.fields
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * A resource whose contents are embedded in the message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * Any content block of a tool result or prompt message, told apart by `type`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union(TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A model's request to call a tool (sampling with tools).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolUseContent = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject,
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ToolUseContent = typeof ToolUseContent.Type

/**
 * The result of a tool use, sent back to the model.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultContent = Schema.Struct({
  type: Schema.Literal("tool_result"),
  toolUseId: Schema.String,
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optional(JsonObject),
  isError: Schema.optional(Schema.Boolean),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * A content block of a sampling message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingContent = Schema.Union(TextContent, ImageContent, AudioContent, ToolUseContent, ToolResultContent)

/**
 * @since 0.1.0
 * @category schemas
 */
export type SamplingContent = typeof SamplingContent.Type
