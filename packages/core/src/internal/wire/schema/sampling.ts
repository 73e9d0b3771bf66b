/**
 * Requests a server sends to the client: sampling (`sampling/createMessage`)
 * and roots (`roots/list`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { EmptyResult, JsonObject, Meta, RequestParams, Role } from "./common.js"
import { SamplingContent } from "./content.js"
import { TaskMetadata } from "./tasks.js"
import { Tool } from "./tools.js"

/**
 * A root directory or file the server may work on.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Root = Schema.Struct({
  uri: Schema.String,
  name: Schema.optional(Schema.String),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Root = typeof Root.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListRootsResult = Schema.Struct({
  ...EmptyResult.fields,
  roots: Schema.Array(Root)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ListRootsResult = typeof ListRootsResult.Type

/**
 * A model name hint, matched as a substring of a model name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelHint = Schema.Struct({
  name: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ModelHint = typeof ModelHint.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ModelPreferences = Schema.Struct({
  hints: Schema.optional(Schema.Array(ModelHint)),
  costPriority: Schema.optional(Schema.Number),
  speedPriority: Schema.optional(Schema.Number),
  intelligencePriority: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ModelPreferences = typeof ModelPreferences.Type

/**
 * A message to or from the model. Since 2025-11-25 `content` may be a single
 * block or an array of blocks.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessage = Schema.Struct({
  role: Role,
  content: Schema.Union(SamplingContent, Schema.Array(SamplingContent)),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type SamplingMessage = typeof SamplingMessage.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ToolChoice = Schema.Struct({
  mode: Schema.optional(Schema.Literal("auto", "required", "none"))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ToolChoice = typeof ToolChoice.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageRequestParams = Schema.Struct({
  ...RequestParams.fields,
  messages: Schema.Array(SamplingMessage),
  modelPreferences: Schema.optional(ModelPreferences),
  systemPrompt: Schema.optional(Schema.String),
  includeContext: Schema.optional(Schema.Literal("none", "thisServer", "allServers")),
  temperature: Schema.optional(Schema.Number),
  maxTokens: Schema.Number,
  stopSequences: Schema.optional(Schema.Array(Schema.String)),
  metadata: Schema.optional(JsonObject),
  tools: Schema.optional(Schema.Array(Tool)),
  toolChoice: Schema.optional(ToolChoice),
  task: Schema.optional(TaskMetadata)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/**
 * The client's sampled message. `stopReason` is an open string; the standard
 * values are `endTurn`, `stopSequence`, `maxTokens` and `toolUse`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageResult = Schema.Struct({
  ...EmptyResult.fields,
  role: Role,
  content: SamplingMessage.fields.content,
  model: Schema.String,
  stopReason: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CreateMessageResult = typeof CreateMessageResult.Type
