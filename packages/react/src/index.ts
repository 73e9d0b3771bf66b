/**
 * @since 0.2.0
 */
export * as Client from "./Client.js"

/**
 * @since 0.2.0
 */
export * as Live from "./Live.js"

/**
 * @since 0.2.0
 */
export * as RuntimeProvider from "./RuntimeProvider.js"

/**
 * @since 0.2.0
 */
export * as ToolCall from "./ToolCall.js"

/**
 * @since 0.2.0
 */
export * as Elicitations from "./Elicitations.js"

/**
 * @since 0.2.0
 */
export * as Tasks from "./Tasks.js"

/**
 * @since 0.2.0
 */
export * as Approvals from "./Approvals.js"

/**
 * @since 0.2.0
 */
export * as Registry from "./Registry.js"

/**
 * @since 0.2.0
 */
export * as History from "./History.js"

/**
 * @since 0.2.0
 */
export * as OAuth from "./OAuth.js"

/**
 * @since 0.4.0
 */
export * as McpApp from "./McpApp.js"

/**
 * @since 0.4.0
 */
export * as ToolSearch from "./ToolSearch.js"

/**
 * Pending continuations (core's `Continuations`) listed live and answered
 * from the UI, so a reloaded page reattaches to the requests waiting for input.
 *
 * @since 0.4.0
 */
export * as Continuations from "./Continuations.js"
