/**
 * Wire schemas for the Model Context Protocol, revision 2025-11-25, covering
 * every message a client sends or receives, and what revision 2026-07-28
 * adds (`server/discover`, `input_required`, `subscriptions/listen`, the
 * reserved `_meta` keys). Older revisions (2025-06-18, 2025-03-26,
 * 2024-11-05) decode too: fields they lack are optional.
 *
 * Every schema is a plain `Schema.Struct` (decoded values are plain objects).
 * Decode and encode with `{ onExcessProperty: "preserve" }` so that fields
 * from newer revisions or extensions survive a round trip. JSON Schemas
 * carried by messages (tool `inputSchema` / `outputSchema`, elicitation
 * `requestedSchema`) are checked but never rebuilt, so they stay
 * `JSON.stringify`-identical to what the server sent.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/common.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/content.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/elicitation.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/lifecycle.js"

/**
 * @since 0.2.0
 */
export * from "./internal/wire/schema/modern.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/prompts.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/resources.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/sampling.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/tasks.js"

/**
 * @since 0.1.0
 */
export * from "./internal/wire/schema/tools.js"

/**
 * The revision this library speaks by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const LATEST_PROTOCOL_VERSION = "2025-11-25"

/**
 * Revisions of the legacy era (an `initialize` handshake) this library can
 * negotiate, newest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [LATEST_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * The revision of the modern, stateless era (no `initialize`; version,
 * client info and capabilities in the `_meta` of every request).
 *
 * @since 0.2.0
 * @category constants
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28"

/**
 * Revisions of the modern era this library speaks, newest first.
 *
 * @since 0.2.0
 * @category constants
 */
export const MODERN_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION] as const

/**
 * Every method name a client sends or receives, requests and notifications.
 *
 * @since 0.1.0
 * @category constants
 */
export const Method = {
  Initialize: "initialize",
  ServerDiscover: "server/discover",
  SubscriptionsListen: "subscriptions/listen",
  Ping: "ping",
  CompletionComplete: "completion/complete",
  LoggingSetLevel: "logging/setLevel",
  PromptsList: "prompts/list",
  PromptsGet: "prompts/get",
  ResourcesList: "resources/list",
  ResourcesTemplatesList: "resources/templates/list",
  ResourcesRead: "resources/read",
  ResourcesSubscribe: "resources/subscribe",
  ResourcesUnsubscribe: "resources/unsubscribe",
  ToolsList: "tools/list",
  ToolsCall: "tools/call",
  TasksGet: "tasks/get",
  TasksResult: "tasks/result",
  TasksList: "tasks/list",
  TasksCancel: "tasks/cancel",
  SamplingCreateMessage: "sampling/createMessage",
  RootsList: "roots/list",
  ElicitationCreate: "elicitation/create",
  NotificationsInitialized: "notifications/initialized",
  NotificationsCancelled: "notifications/cancelled",
  NotificationsProgress: "notifications/progress",
  NotificationsMessage: "notifications/message",
  NotificationsResourcesUpdated: "notifications/resources/updated",
  NotificationsResourcesListChanged: "notifications/resources/list_changed",
  NotificationsToolsListChanged: "notifications/tools/list_changed",
  NotificationsPromptsListChanged: "notifications/prompts/list_changed",
  NotificationsRootsListChanged: "notifications/roots/list_changed",
  NotificationsTasksStatus: "notifications/tasks/status",
  NotificationsElicitationComplete: "notifications/elicitation/complete",
  NotificationsSubscriptionsAcknowledged: "notifications/subscriptions/acknowledged"
} as const

/**
 * @since 0.1.0
 * @category models
 */
export type Method = typeof Method[keyof typeof Method]
