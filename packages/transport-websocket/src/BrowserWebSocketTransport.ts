/**
 * The WebSocket transport in a browser, over the page's `WebSocket`. A
 * browser sends no custom handshake headers: put a credential the server
 * accepts elsewhere (a cookie of its origin), never in the URL's query.
 * Message size is checked once a frame has arrived.
 *
 * @since 0.2.0
 */
import * as Socket from "@effect/platform/Socket"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Layer from "effect/Layer"
import * as WebSocketTransport from "./WebSocketTransport.js"

/**
 * The transport over `globalThis.WebSocket`.
 *
 * @example
 * ```ts
 * import { McpClient } from "@mcp-effect/core"
 * import { BrowserWebSocketTransport } from "@mcp-effect/transport-websocket/browser"
 * import { Layer } from "effect"
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "my-page", version: "1.0.0" } }).pipe(
 *   Layer.provide(BrowserWebSocketTransport.layer({ url: "wss://mcp.example.com/mcp" }))
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: WebSocketTransport.Options
): Layer.Layer<McpTransport.McpTransport, McpError.TransportError> =>
  WebSocketTransport.layer(options).pipe(Layer.provide(Socket.layerWebSocketConstructorGlobal))
