/**
 * Building blocks shared by every MCP message family: metadata maps, opaque
 * JSON objects, identifiers, request / notification / result bases, icons,
 * implementation info and annotations.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * An arbitrary JSON object, passed through as is: decoding and encoding
 * return the very same object, so keys, key order and nested values are
 * untouched (no copy that could reorder or drop anything).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObject = Schema.declare(
  (u: unknown): u is { readonly [key: string]: unknown } => Predicate.isRecord(u),
  {
    identifier: "JsonObject",
    description: "a JSON object",
    arbitrary: () => (fc) => fc.dictionary(fc.string(), fc.jsonValue())
  }
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type JsonObject = typeof JsonObject.Type

/**
 * The `_meta` map that most MCP objects may carry. Keys and values are
 * opaque; like {@link JsonObject} it is passed through untouched.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Meta = JsonObject

/**
 * @since 0.1.0
 * @category schemas
 */
export type Meta = typeof Meta.Type

/**
 * A JSON Schema object whose root has `type: "object"`, such as a tool's
 * `inputSchema` or `outputSchema`. Everything else (`$defs`, `$schema`,
 * `additionalProperties`, key order) is kept untouched.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ObjectJsonSchema = JsonObject.pipe(
  Schema.filter(
    (schema): schema is { readonly type: "object"; readonly [key: string]: unknown } => schema.type === "object",
    {
      identifier: "ObjectJsonSchema",
      message: () => "expected a JSON Schema with type \"object\" at its root",
      arbitrary: () => (fc) =>
        fc.dictionary(fc.string(), fc.jsonValue()).map((schema) => ({ ...schema, type: "object" as const }))
    }
  )
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ObjectJsonSchema = typeof ObjectJsonSchema.Type

/**
 * A protocol revision identifier such as `"2025-11-25"`. Kept as an open
 * string: a peer may answer with a revision this library does not know.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProtocolVersion = Schema.String

/**
 * @since 0.1.0
 * @category schemas
 */
export type ProtocolVersion = typeof ProtocolVersion.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const RequestId = Schema.Union(Schema.String, Schema.Number)

/**
 * @since 0.1.0
 * @category schemas
 */
export type RequestId = typeof RequestId.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ProgressToken = Schema.Union(Schema.String, Schema.Number)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ProgressToken = typeof ProgressToken.Type

const isProgressToken = Schema.is(ProgressToken)

/**
 * An opaque pagination position.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Cursor = Schema.String

/**
 * @since 0.1.0
 * @category schemas
 */
export type Cursor = typeof Cursor.Type

/**
 * The `_meta` of a request: a metadata map that may hold the progress token.
 * Passed through untouched like {@link Meta}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestMeta = JsonObject.pipe(
  Schema.filter(
    (meta): meta is { readonly progressToken?: ProgressToken; readonly [key: string]: unknown } =>
      meta.progressToken === undefined || isProgressToken(meta.progressToken),
    {
      identifier: "RequestMeta",
      message: () => "expected progressToken to be a string or a number",
      arbitrary: () => (fc) => fc.record({ progressToken: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] })
    }
  )
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type RequestMeta = typeof RequestMeta.Type

/**
 * Parameters every request may carry (used alone by `ping` and `roots/list`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestParams = Schema.Struct({ _meta: Schema.optional(RequestMeta) })

/**
 * @since 0.1.0
 * @category schemas
 */
export type RequestParams = typeof RequestParams.Type

/**
 * Parameters every notification may carry (used alone by `initialized` and
 * the `list_changed` notifications).
 *
 * @since 0.1.0
 * @category schemas
 */
export const NotificationParams = Schema.Struct({ _meta: Schema.optional(Meta) })

/**
 * @since 0.1.0
 * @category schemas
 */
export type NotificationParams = typeof NotificationParams.Type

/**
 * A result that carries no data (e.g. the answer to `ping`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EmptyResult = Schema.Struct({ _meta: Schema.optional(Meta) })

/**
 * @since 0.1.0
 * @category schemas
 */
export type EmptyResult = typeof EmptyResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PaginatedRequestParams = Schema.Struct({
  ...RequestParams.fields,
  cursor: Schema.optional(Cursor)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PaginatedRequestParams = typeof PaginatedRequestParams.Type

/**
 * Fields shared by every paginated result.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PaginatedResult = Schema.Struct({
  ...EmptyResult.fields,
  nextCursor: Schema.optional(Cursor)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PaginatedResult = typeof PaginatedResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Role = Schema.Literal("user", "assistant")

/**
 * @since 0.1.0
 * @category schemas
 */
export type Role = typeof Role.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Icon = Schema.Struct({
  src: Schema.String,
  mimeType: Schema.optional(Schema.String),
  sizes: Schema.optional(Schema.Array(Schema.String)),
  theme: Schema.optional(Schema.Literal("light", "dark"))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Icon = typeof Icon.Type

/**
 * The optional `icons` field; spread `Icons.fields` into a struct.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Icons = Schema.Struct({ icons: Schema.optional(Schema.Array(Icon)) })

/**
 * @since 0.1.0
 * @category schemas
 */
export type Icons = typeof Icons.Type

/**
 * A programmatic `name` and an optional display `title`; spread
 * `BaseMetadata.fields` into a struct.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BaseMetadata = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type BaseMetadata = typeof BaseMetadata.Type

/**
 * Name and version of an MCP client or server.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Implementation = Schema.Struct({
  ...BaseMetadata.fields,
  ...Icons.fields,
  version: Schema.String,
  description: Schema.optional(Schema.String),
  websiteUrl: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Implementation = typeof Implementation.Type

/**
 * Hints for the client about audience, importance and freshness.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Annotations = Schema.Struct({
  audience: Schema.optional(Schema.Array(Role)),
  priority: Schema.optional(Schema.Number),
  lastModified: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Annotations = typeof Annotations.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ProgressNotificationParams = Schema.Struct({
  ...NotificationParams.fields,
  progressToken: ProgressToken,
  progress: Schema.Number,
  total: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ProgressNotificationParams = typeof ProgressNotificationParams.Type

/**
 * `requestId` is optional since 2025-11-25 (it must be present for non-task
 * requests; tasks are cancelled with `tasks/cancel`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelledNotificationParams = Schema.Struct({
  ...NotificationParams.fields,
  requestId: Schema.optional(RequestId),
  reason: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CancelledNotificationParams = typeof CancelledNotificationParams.Type
