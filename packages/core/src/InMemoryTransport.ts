/**
 * An in-memory `McpTransport`: each connection is a pair of queues, and the
 * server side of every new connection is handed out through `accept`. It is
 * the main test double; `TestServer` builds a small MCP server on it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"
import * as McpTransport from "./McpTransport.js"

/**
 * The server's side of one in-memory connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerEnd {
  /** What the client sent on this connection; ends when the connection closes. */
  readonly incoming: Stream.Stream<JsonRpc.Message>
  /** Delivers a message (or a malformed frame) to the client. */
  readonly send: (message: JsonRpc.Incoming) => Effect.Effect<void>
  /** Ends the connection, as if the server went away. */
  readonly close: Effect.Effect<void>
  /**
   * Fails the connection, as a transport does when its input is no longer
   * usable (an oversized frame, a broken stream): the client's side fails
   * with `error` once it has taken what was sent before.
   *
   * @since 0.2.0
   */
  readonly fail: (error: McpTransport.ConnectionError) => Effect.Effect<void>
  readonly isOpen: Effect.Effect<boolean>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface InMemoryTransport {
  readonly transport: McpTransport.McpTransport["Type"]
  /** Takes the server side of the next connection the client opens. */
  readonly accept: Effect.Effect<ServerEnd>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: McpTransport.ReconnectOptions): Effect.Effect<InMemoryTransport, never, Scope.Scope> =>
  Effect.gen(function*() {
    const accepted = yield* Effect.acquireRelease(Queue.unbounded<ServerEnd>(), Queue.shutdown)
    const connect = Effect.gen(function*() {
      const toServer = yield* Queue.unbounded<JsonRpc.Message>()
      // unbounded, as the server's queue is: a test delivers what it wants, when it wants
      const inbound = McpTransport.makeInboundBuffer(Number.POSITIVE_INFINITY)
      let open = true
      const close = Effect.suspend(() => {
        open = false
        inbound.end()
        return Queue.shutdown(toServer)
      })
      yield* Effect.addFinalizer(() => close)
      yield* Queue.offer(accepted, {
        incoming: Stream.fromQueue(toServer),
        send: (message) => Effect.sync(() => void inbound.offerNow([message])),
        close,
        fail: (error) =>
          Effect.suspend(() => {
            inbound.end(error)
            return close
          }),
        isOpen: Effect.sync(() => open)
      })
      const connection: McpTransport.Connection = {
        description: "in-memory",
        inbound,
        send: (message) =>
          open ?
            Effect.asVoid(Queue.offer(toServer, message)) :
            Effect.fail(new McpError.TransportError({ reason: "Write", message: "the in-memory connection is closed" }))
      }
      return connection
    })
    return {
      transport: McpTransport.make(() => ({ connect, reconnect: options })),
      accept: Queue.take(accepted)
    }
  })
