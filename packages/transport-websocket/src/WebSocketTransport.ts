/**
 * The WebSocket transport: one WebSocket per connection, subprotocol
 * `mcp` (as the official SDK's WebSocket client asks for), one JSON-RPC
 * message per text frame each way.
 *
 * Built on `@effect/platform`'s `Socket`; the WebSocket itself comes from a
 * `Socket.WebSocketConstructor`. Use `NodeWebSocketTransport` (from
 * `@mcp-effect/transport-websocket/node`, handshake headers such as
 * `Authorization`, a size limit enforced while a frame arrives) or
 * `BrowserWebSocketTransport` (from `@mcp-effect/transport-websocket/browser`,
 * the page's `WebSocket`), or provide a constructor yourself to `layer`.
 *
 * Faults, each a `TransportError`:
 *
 * - the socket does not open (refused, handshake answered with an HTTP
 *   status, `openTimeout`): reason `"Connect"`, phase `"open"` (with the
 *   status, when the platform tells it); the server refused the `mcp`
 *   subprotocol: phase `"subprotocol"`. Before any connection worked, the
 *   short first-connect budget applies, so a wrong URL is reported fast.
 * - the server closed the socket, or it broke: phase `"close"`, the close
 *   code and reason in the message and in the `cause`
 *   (`WebSocketError.ConnectionClosed`). The session reconnects on the
 *   reconnect schedule; calls in flight that cannot be replayed fail with
 *   `OutcomeUnknown`.
 * - a message over `maxMessageBytes`: reason `"Read"`, phase
 *   `"message-size"`; the socket is closed with code 1009. The session
 *   fails the requests in flight with this error rather than sending them
 *   again (the message may have been any one's answer).
 * - a text frame that is not a JSON-RPC message, or a binary frame: a
 *   `JsonRpc.Malformed` for the session; the connection stays up.
 *
 * @since 0.2.0
 */
import type * as Socket from "@effect/platform/Socket"
import type * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as config from "./internal/config.js"
import * as internal from "./internal/connection.js"

/**
 * The WebSocket subprotocol the transport asks for: `mcp`.
 *
 * @since 0.2.0
 * @category constants
 */
export const subprotocol: string = internal.subprotocol

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The server's WebSocket endpoint, `ws:` or `wss:`, e.g. `wss://example.com/mcp`. */
  readonly url: string | URL
  /**
   * The largest message accepted, in UTF-8 bytes. A larger one ends the
   * connection (`TransportError` reason `"Read"`, phase `"message-size"`),
   * the requests in flight fail with that error (none is sent again) and
   * the session reconnects. Default `JsonRpc.defaultMaxMessageBytes`
   * (16 MiB).
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * How many received messages may wait for a reader of
   * `Connection.incoming`. A WebSocket cannot be paused, so a reader that
   * falls further behind ends the connection (`TransportError` reason
   * `"Read"`, phase `"incoming"`) rather than losing messages. The session
   * reads through `Connection.push`, which has no queue. Default 1024.
   */
  readonly incomingCapacity?: number | undefined
  /**
   * How many bytes may wait in the socket's outgoing buffer. Past it, a
   * send waits (looking again every 10 ms: browsers have no drain event)
   * until the network has taken enough, so a server that stops reading
   * slows its senders down instead of growing the buffer. Default 1 MiB.
   */
  readonly maxBufferedBytes?: number | undefined
  /** The longest wait for the socket to open. Default 10 seconds. */
  readonly openTimeout?: Duration.DurationInput | undefined
  /** When and how often a lost connection is made again. */
  readonly reconnect?: McpTransport.ReconnectOptions | undefined
}

/**
 * Builds the transport service. An invalid option (a URL that is not
 * absolute `ws:` / `wss:`, a size that is not a positive integer, ...)
 * fails with `TransportError` (phase `"options"`), never with a defect.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<McpTransport.McpTransport["Type"], McpError.TransportError, Socket.WebSocketConstructor> =>
  Effect.gen(function*() {
    const resolved = yield* config.resolve(options)
    const construct = yield* Effect.context<Socket.WebSocketConstructor>()
    const connect = Effect.provide(internal.connect(resolved), construct)
    return McpTransport.make(() => ({ connect, reconnect: resolved.reconnect }))
  })

/**
 * The transport as a Layer over any `Socket.WebSocketConstructor`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<McpTransport.McpTransport, McpError.TransportError, Socket.WebSocketConstructor> =>
  Layer.effect(McpTransport.McpTransport, make(options))
