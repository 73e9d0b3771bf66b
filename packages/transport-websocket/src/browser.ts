/**
 * The browser entry point: `import { BrowserWebSocketTransport } from "@mcp-effect/transport-websocket/browser"`.
 *
 * @since 0.2.0
 */

/**
 * @since 0.2.0
 */
export * as BrowserWebSocketTransport from "./BrowserWebSocketTransport.js"
