/**
 * An in-memory `McpTransport`: each connection is a pair of queues, and the
 * server side of every new connection is handed out through `accept`. It is
 * the main test double; `TestServer` builds a small MCP server on it.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
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
   * with `error` (input not yet taken by the client is lost with it).
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
      const toClient = yield* Queue.unbounded<JsonRpc.Incoming>()
      let open = true
      let failure: McpTransport.ConnectionError | undefined
      const close = Effect.suspend(() => {
        open = false
        return Effect.zipRight(Queue.shutdown(toServer), Queue.shutdown(toClient))
      })
      // the end of the client's side: a clean end, or the failure it was given
      const ended = Effect.suspend(() => failure === undefined ? Effect.void : Effect.fail(failure))
      yield* Effect.addFinalizer(() => close)
      yield* Queue.offer(accepted, {
        incoming: Stream.fromQueue(toServer),
        send: (message) => Effect.asVoid(Queue.offer(toClient, message)),
        close,
        fail: (error) =>
          Effect.suspend(() => {
            failure ??= error
            return close
          }),
        isOpen: Effect.sync(() => open)
      })
      const connection: McpTransport.Connection = {
        description: "in-memory",
        incoming: Stream.concat(Stream.fromQueue(toClient), Stream.fromEffect(ended).pipe(Stream.drain)),
        // the fast path: whatever is queued is handed over in one batch
        push: (onMessages) =>
          Queue.takeBetween(toClient, 1, Number.MAX_SAFE_INTEGER).pipe(
            Effect.flatMap((batch) => Effect.sync(() => onMessages(Chunk.toReadonlyArray(batch)))),
            Effect.forever,
            Effect.catchAllCause(() => ended) // the queue was shut down: the connection ended
          ),
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
