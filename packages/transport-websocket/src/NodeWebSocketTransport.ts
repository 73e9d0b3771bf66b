/**
 * The WebSocket transport on Node, over the `ws` package: handshake
 * headers (an `Authorization` header, an API key) and a message size limit
 * that `ws` enforces while a frame arrives, so an oversized frame is never
 * held in memory.
 *
 * @since 0.2.0
 */
import * as Socket from "@effect/platform/Socket"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as internal from "./internal/node.js"
import * as WebSocketTransport from "./WebSocketTransport.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options extends WebSocketTransport.Options {
  /**
   * Headers of the opening handshake; `Redacted` values are secrets and
   * never appear in logs or errors. The handshake's own headers
   * (`Sec-WebSocket-*`, `Upgrade`, ...) cannot be set.
   */
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
}

/**
 * A `Socket.WebSocketConstructor` over `ws`, sending `headers` with the
 * handshake and refusing frames over `maxMessageBytes` (default 16 MiB)
 * as they arrive. A bad header fails with `TransportError` (phase
 * `"options"`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeConstructor: (options?: {
  readonly headers?: Options["headers"]
  readonly maxMessageBytes?: number | undefined
}) => Effect.Effect<Context.Tag.Service<typeof Socket.WebSocketConstructor>, McpError.TransportError> =
  internal.makeConstructor

/**
 * The transport on Node.
 *
 * @example
 * ```ts
 * import { McpClient } from "@mcp-effect/core"
 * import { NodeWebSocketTransport } from "@mcp-effect/transport-websocket/node"
 * import { Layer, Redacted } from "effect"
 *
 * const Transport = NodeWebSocketTransport.layer({
 *   url: "wss://mcp.example.com/mcp",
 *   headers: { authorization: Redacted.make("Bearer my-api-key") }
 * })
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(Transport)
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpTransport.McpTransport, McpError.TransportError> =>
  WebSocketTransport.layer(options).pipe(
    Layer.provide(Layer.effect(Socket.WebSocketConstructor, makeConstructor(options)))
  )
