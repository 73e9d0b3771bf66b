/**
 * What the 2026-07-28 revision (the "modern", stateless era) adds to the
 * wire: the reserved `_meta` keys every request carries, `server/discover`,
 * multi-round-trip results (`input_required`) and `subscriptions/listen`.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { EmptyResult, Implementation, JsonObject, NotificationParams, ProtocolVersion } from "./common.js"
import { ServerCapabilities } from "./lifecycle.js"

/**
 * The reserved `_meta` keys of the modern era.
 *
 * @since 0.2.0
 * @category constants
 */
export const MetaKey = {
  /** The protocol version of a request (required on every request). */
  ProtocolVersion: "io.modelcontextprotocol/protocolVersion",
  /** The client's name and version (sent on every request). */
  ClientInfo: "io.modelcontextprotocol/clientInfo",
  /** The client's capabilities for a request (required on every request). */
  ClientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  /** The lowest log level the server may send `notifications/message` at, for one request. */
  LogLevel: "io.modelcontextprotocol/logLevel",
  /** The server's name and version, in a result's `_meta`. */
  ServerInfo: "io.modelcontextprotocol/serverInfo",
  /** The `subscriptions/listen` request a notification belongs to. */
  SubscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/**
 * How a result of the modern era is to be read: `"complete"` (also assumed
 * when absent, as from earlier revisions) or `"input_required"`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResultType = Schema.String

/**
 * The caching hints (SEP-2549) of a 2026-07-28 result of `server/discover`,
 * `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`
 * and `resources/read`: `ttlMs`, how long the result stays fresh (absent
 * means 0: stale at once), and `cacheScope`, `"public"` (the same for every
 * caller) or `"private"` (kept as a string: an unknown value counts as
 * private). Interim `input_required` results carry none.
 *
 * @since 0.3.0
 * @category schemas
 */
export const CacheHints = /* @__PURE__ */ Schema.Struct({
  ttlMs: Schema.optional(Schema.Number),
  cacheScope: Schema.optional(Schema.String)
})

/**
 * The result of `server/discover`: the versions the server speaks, its
 * capabilities and instructions. The server's name and version are in
 * `_meta` under {@link MetaKey}`.ServerInfo` (some servers put a
 * `serverInfo` field beside them instead; both are read).
 *
 * @since 0.2.0
 * @category schemas
 */
export const DiscoverResult = Schema.Struct({
  ...EmptyResult.fields,
  resultType: Schema.optional(ResultType),
  supportedVersions: Schema.Array(ProtocolVersion),
  capabilities: ServerCapabilities,
  instructions: Schema.optional(Schema.String),
  serverInfo: Schema.optional(Implementation),
  ...CacheHints.fields
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type DiscoverResult = typeof DiscoverResult.Type

/**
 * One request the server needs answered before it can finish a request:
 * `elicitation/create`, `sampling/createMessage` or `roots/list`, with the
 * params those methods take.
 *
 * @since 0.2.0
 * @category schemas
 */
export const InputRequest = Schema.Struct({
  method: Schema.String,
  params: Schema.optional(JsonObject)
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type InputRequest = typeof InputRequest.Type

/**
 * A result saying the server needs more input: the requests to answer
 * (keyed by the server's own identifiers) and an opaque `requestState` to
 * echo, unchanged, when the original request is sent again.
 *
 * @since 0.2.0
 * @category schemas
 */
export const InputRequiredResult = Schema.Struct({
  ...EmptyResult.fields,
  resultType: Schema.Literal("input_required"),
  inputRequests: Schema.optional(Schema.Record({ key: Schema.String, value: InputRequest })),
  requestState: Schema.optional(Schema.String)
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type InputRequiredResult = typeof InputRequiredResult.Type

/**
 * The notifications a `subscriptions/listen` request opts in to (and, in
 * the acknowledgement, those the server agreed to send).
 *
 * @since 0.2.0
 * @category schemas
 */
export const SubscriptionFilter = Schema.Struct({
  toolsListChanged: Schema.optional(Schema.Boolean),
  promptsListChanged: Schema.optional(Schema.Boolean),
  resourcesListChanged: Schema.optional(Schema.Boolean),
  resourceSubscriptions: Schema.optional(Schema.Array(Schema.String))
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type SubscriptionFilter = typeof SubscriptionFilter.Type

/**
 * Params of `notifications/subscriptions/acknowledged`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const SubscriptionsAcknowledgedNotificationParams = Schema.Struct({
  ...NotificationParams.fields,
  notifications: SubscriptionFilter
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type SubscriptionsAcknowledgedNotificationParams = typeof SubscriptionsAcknowledgedNotificationParams.Type
