/**
 * Resources: listing, templates, reading, subscriptions and the contents of
 * a resource.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Annotations, BaseMetadata, Icons, Meta, NotificationParams, PaginatedResult, RequestParams } from "./common.js"
import { CacheHints } from "./modern.js"

/**
 * A resource the server can read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Resource = Schema.Struct({
  ...BaseMetadata.fields,
  ...Icons.fields,
  uri: Schema.String,
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  annotations: Schema.optional(Annotations),
  size: Schema.optional(Schema.Number),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Resource = typeof Resource.Type

/**
 * A family of resources described by an RFC 6570 URI template.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTemplate = Schema.Struct({
  ...BaseMetadata.fields,
  ...Icons.fields,
  uriTemplate: Schema.String,
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  _meta: Schema.optional(Meta),
  text: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TextResourceContents = typeof TextResourceContents.Type

/**
 * Binary contents, base64-encoded in `blob`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlobResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  _meta: Schema.optional(Meta),
  blob: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type BlobResourceContents = typeof BlobResourceContents.Type

/**
 * The contents of a resource: text or blob.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceContents = Schema.Union(TextResourceContents, BlobResourceContents)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListResourcesResult = Schema.Struct({
  ...CacheHints.fields,
  ...PaginatedResult.fields,
  resources: Schema.Array(Resource)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ListResourcesResult = typeof ListResourcesResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListResourceTemplatesResult = Schema.Struct({
  ...CacheHints.fields,
  ...PaginatedResult.fields,
  resourceTemplates: Schema.Array(ResourceTemplate)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceRequestParams = Schema.Struct({
  ...RequestParams.fields,
  uri: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ReadResourceRequestParams = typeof ReadResourceRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceResult = Schema.Struct({
  ...CacheHints.fields,
  _meta: Schema.optional(Meta),
  contents: Schema.Array(ResourceContents)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const SubscribeRequestParams = ReadResourceRequestParams

/**
 * @since 0.1.0
 * @category schemas
 */
export type SubscribeRequestParams = typeof SubscribeRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const UnsubscribeRequestParams = ReadResourceRequestParams

/**
 * @since 0.1.0
 * @category schemas
 */
export type UnsubscribeRequestParams = typeof UnsubscribeRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResourceUpdatedNotificationParams = Schema.Struct({
  ...NotificationParams.fields,
  uri: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ResourceUpdatedNotificationParams = typeof ResourceUpdatedNotificationParams.Type
