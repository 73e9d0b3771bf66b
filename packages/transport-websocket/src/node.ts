/**
 * The Node entry point: `import { NodeWebSocketTransport } from "@mcp-effect/transport-websocket/node"`.
 *
 * @since 0.2.0
 */

/**
 * @since 0.2.0
 */
export * as NodeWebSocketTransport from "./NodeWebSocketTransport.js"
