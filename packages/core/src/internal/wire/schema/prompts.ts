/**
 * Prompts, argument completion and logging.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  BaseMetadata,
  EmptyResult,
  Icons,
  Meta,
  NotificationParams,
  PaginatedResult,
  RequestParams,
  Role
} from "./common.js"
import { ContentBlock } from "./content.js"
import { CacheHints } from "./modern.js"

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptArgument = Schema.Struct({
  ...BaseMetadata.fields,
  description: Schema.optional(Schema.String),
  required: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PromptArgument = typeof PromptArgument.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Prompt = Schema.Struct({
  ...BaseMetadata.fields,
  ...Icons.fields,
  description: Schema.optional(Schema.String),
  arguments: Schema.optional(Schema.Array(PromptArgument)),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Prompt = typeof Prompt.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListPromptsResult = Schema.Struct({
  ...CacheHints.fields,
  ...PaginatedResult.fields,
  prompts: Schema.Array(Prompt)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ListPromptsResult = typeof ListPromptsResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptRequestParams = Schema.Struct({
  ...RequestParams.fields,
  name: Schema.String,
  arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type GetPromptRequestParams = typeof GetPromptRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptMessage = Schema.Struct({
  role: Role,
  content: ContentBlock
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PromptMessage = typeof PromptMessage.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptResult = Schema.Struct({
  ...EmptyResult.fields,
  description: Schema.optional(Schema.String),
  messages: Schema.Array(PromptMessage)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptReference = Schema.Struct({
  type: Schema.Literal("ref/prompt"),
  ...BaseMetadata.fields
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PromptReference = typeof PromptReference.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTemplateReference = Schema.Struct({
  type: Schema.Literal("ref/resource"),
  uri: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ResourceTemplateReference = typeof ResourceTemplateReference.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CompleteRequestParams = Schema.Struct({
  ...RequestParams.fields,
  ref: Schema.Union(PromptReference, ResourceTemplateReference),
  argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
  context: Schema.optional(Schema.Struct({
    arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
  }))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CompleteRequestParams = typeof CompleteRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CompleteResult = Schema.Struct({
  ...EmptyResult.fields,
  completion: Schema.Struct({
    values: Schema.Array(Schema.String),
    total: Schema.optional(Schema.Number),
    hasMore: Schema.optional(Schema.Boolean)
  })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CompleteResult = typeof CompleteResult.Type

/**
 * Syslog severities (RFC 5424), least severe first.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LoggingLevel = Schema.Literal(
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type LoggingLevel = typeof LoggingLevel.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const SetLevelRequestParams = Schema.Struct({
  ...RequestParams.fields,
  level: LoggingLevel
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type SetLevelRequestParams = typeof SetLevelRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const LoggingMessageNotificationParams = Schema.Struct({
  ...NotificationParams.fields,
  level: LoggingLevel,
  logger: Schema.optional(Schema.String),
  data: Schema.Unknown
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type LoggingMessageNotificationParams = typeof LoggingMessageNotificationParams.Type
