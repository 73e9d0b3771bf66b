/**
 * The browser entry point: `import { BrowserHub } from "@mcp-effect/hub/browser"`.
 *
 * @since 0.2.0
 */

/**
 * @since 0.2.0
 */
export * as BrowserHub from "./BrowserHub.js"

/**
 * @since 0.2.0
 */
export * as BrowserTransportFactory from "./BrowserTransportFactory.js"

/**
 * @since 0.2.0
 */
export * as IndexedDbKeyValueStore from "./IndexedDbKeyValueStore.js"
