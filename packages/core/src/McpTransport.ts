/**
 * The one thing a transport implements: a `Stream` of connections.
 *
 * The session pulls a connection, initializes over it and listens to its
 * `inbound` buffer until that ends (the peer went away). Then it pulls the
 * next connection, which closes the previous connection's scope; the
 * transport may wait (a `Schedule`) before it yields the next one. When the
 * stream fails or ends, the session is over.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as inboundBuffer from "./internal/engine/inboundBuffer.js"
import * as internal from "./internal/reconnect.js"
import type * as JsonRpc from "./JsonRpc.js"
import type * as McpError from "./McpError.js"

/**
 * Errors a connection's streams and sends can fail with.
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectionError =
  | McpError.TransportError
  | McpError.SessionExpired
  | McpError.Unauthorized
  | McpError.InsufficientScope

/**
 * One live link to a server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  /**
   * Everything the server sends, in order: the transport offers what it
   * reads into a buffer made with `makeInboundBuffer` (input that is not a
   * valid message as `JsonRpc.Malformed`) and ends it when the link is
   * gone; the session listens to it. The one inbound path: no stream, and
   * no fiber of the session's waits on an idle connection.
   *
   * @since 0.5.0
   */
  readonly inbound: Inbound
  /**
   * Sends one message. Fails when the link is gone. `options` is what the
   * session's era codec says about the message (see `SendOptions`): a
   * transport learns from it, never from the message, which era a message
   * belongs to and what it opens.
   */
  readonly send: (message: JsonRpc.Message, options?: SendOptions) => Effect.Effect<void, ConnectionError>
  /**
   * Optional: sends `message` synchronously when that completes without
   * waiting (the link is open and has room) and returns `true`; otherwise
   * sends nothing and returns `false`, and the session sends it with `send`
   * from a fiber of its own. With it, a request costs no fiber and no
   * effect to send.
   *
   * A transport whose send completes later (an HTTP POST waiting for the
   * server to accept it) may start it here and return `true`, and report a
   * send that failed through `options.onFailure` (at most once, from any
   * callback), where `send` would have failed with the error. The session
   * passes `onFailure` for requests; a transport that needs it sends
   * nothing without it.
   *
   * @since 0.2.0
   */
  readonly sendNow?: ((message: JsonRpc.Message, options?: SendOptions) => boolean) | undefined
  /**
   * Optional: the session gave up on request `id` sent on this connection
   * (interrupted or timed out). The transport closes what carries that
   * request's answer and nothing else: Streamable HTTP aborts the POST
   * while the server has not accepted it, or closes its response stream.
   * It reads no message to learn this, and sends none: the session tells
   * the server itself, with `notifications/cancelled`, except where the
   * era cancels by closing the stream (protocol 2026-07-28, on a transport
   * that has `cancel`). Transports whose requests share one stream (stdio,
   * WebSocket) leave it unset.
   *
   * @since 0.4.0
   */
  readonly cancel?: ((id: JsonRpc.RequestId) => void) | undefined
  /**
   * A short description for logs and errors (never containing secrets).
   */
  readonly description: string
  /**
   * OpenTelemetry's `network.transport` for request spans: `"pipe"` for
   * stdio, `"tcp"` for HTTP.
   *
   * @since 0.2.0
   */
  readonly networkTransport?: string | undefined
  /**
   * The session id the server assigned (Streamable HTTP's `Mcp-Session-Id`),
   * once known: `mcp.session.id` on request spans.
   *
   * @since 0.2.0
   */
  readonly sessionId?: (() => string | undefined) | undefined

  /**
   * `true` when this connection continues the session that
   * `Resumption.resume` named (the server still knew it): the session then
   * sends no `initialize`. Transports that cannot resume leave it unset.
   *
   * @since 0.2.0
   */
  readonly resumed?: boolean | undefined

  /**
   * The session's hand-off of what its handshake negotiated. The session
   * calls it once the protocol version is fixed and before it sends any
   * other message on this connection (with the 2025 revisions: after the
   * `initialize` result, before `notifications/initialized`; on a resumed
   * connection: with the stored version). HTTP sends the version as
   * `MCP-Protocol-Version` from then on. Transports read no protocol
   * message to learn it.
   *
   * @since 0.2.0
   */
  readonly negotiated?: ((info: Negotiated) => Effect.Effect<void>) | undefined

  /**
   * Called by the session once the connection is ready (the handshake is
   * complete, or the session was resumed), before waiting requests are
   * released: the transport may now open what carries the server's own
   * messages (HTTP's GET stream). The fiber that runs it ends soon after, so
   * what it starts must run in the connection's own scope (a fiber forked
   * with `Effect.fork` would be interrupted).
   *
   * @since 0.2.0
   */
  readonly ready?: Effect.Effect<void> | undefined
}

/**
 * What the session's handshake agreed on, as a transport needs it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Negotiated {
  readonly protocolVersion: string
  /**
   * The era of the version: `"legacy"` for the revisions opened with
   * `initialize` (up to 2025-11-25), `"modern"` for 2026-07-28 (stateless:
   * state in each request, no server-to-client stream of its own).
   *
   * @since 0.5.0
   */
  readonly era?: "legacy" | "modern" | undefined
}

/**
 * What the session's era codec tells the transport about one message it
 * sends (`Connection.send`). Transports read these instead of the message:
 * none of them infers an era or a request's role from a method name or a
 * `_meta`.
 *
 * @since 0.5.0
 * @category models
 */
export interface SendOptions {
  /**
   * The protocol version a message of the 2026-07-28 era goes out under
   * (HTTP sends it as `MCP-Protocol-Version` and no session id): set on
   * every message of that era, the `server/discover` probe included (sent
   * before `negotiated`). Unset in the 2025 era, where the version comes
   * from `negotiated`.
   */
  readonly protocolVersion?: string | undefined
  /** Headers the era mirrors from the message (2026-07-28: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * What the request is to the transport:
   * - `"initialize"`: the opening of the 2025 era; a connection whose
   *   `initialize` fails is of no use (HTTP ends it), its answer names the
   *   session, and a server that refuses it may speak only the 2024-11-05
   *   HTTP+SSE transport;
   * - `"listen"`: a long-lived request (2026-07-28 `subscriptions/listen`)
   *   whose response stream carries the server's notifications; a
   *   transport that loses that stream opens it again.
   */
  readonly kind?: "initialize" | "listen" | undefined
  /** For `sendNow`: how a send that failed after it returned `true` is reported. */
  readonly onFailure?: ((error: ConnectionError) => void) | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpTransport extends Context.Tag("@mcp-effect/core/McpTransport")<
  McpTransport,
  {
    readonly connections: Stream.Stream<Connection, McpError.TransportError>
    /**
     * Optional: the same connections as `connections`, pulled one by one
     * without a stream. Each call starts a run of its own (as each run of
     * `connections` is). The session reads it when it is there instead of
     * `connections`: each stage of a stream it reads stays in memory for as
     * long as the session lives. `make` and `layer` set both from one
     * `connect`.
     *
     * @since 0.4.0
     */
    readonly open?: (() => ConnectionPull) | undefined
    /**
     * Where the transport reaches the server (Streamable HTTP: its URL), so
     * that what is stored for a server (`SessionStore`) is only ever used
     * with the same server. It may carry secrets (an API key in a query
     * string): it is only hashed, never logged. Transports without one are
     * known by the server's name alone.
     *
     * @since 0.3.0
     */
    readonly endpoint?: string | undefined
  }
>() {}

/**
 * One run of a transport's connections, read without a stream
 * (`McpTransport`'s `open`).
 *
 * @since 0.4.0
 * @category models
 */
export interface ConnectionPull {
  /**
   * Closes the scope of the connection handed out before (its consumer is
   * done with it) and hands out the next one, after the reconnect schedule's
   * delay; fails with `None` when there is no next one, `Some` when the
   * transport gave up.
   */
  readonly next: Effect.Effect<Connection, Option.Option<McpError.TransportError>>
  /** Closes the connection handed out last: the consumer runs it when it stops reading. */
  readonly close: Effect.Effect<void>
}

/**
 * What one run of a transport connects with (see `make`).
 *
 * @since 0.4.0
 * @category models
 */
export interface Connector {
  /**
   * Opens one connection in the scope it is given. Read once per attempt,
   * so it may be a getter that builds the effect then.
   */
  readonly connect: Effect.Effect<Connection, McpError.TransportError, Scope.Scope>
  readonly reconnect?: ReconnectOptions | undefined
  /**
   * For failures retrying cannot help (a program that does not exist): once
   * it has failed, the run fails with its error instead of trying again
   * (see `fromConnect`).
   */
  readonly giveUp?: Deferred.Deferred<never, McpError.TransportError> | undefined
}

/**
 * How a transport comes back after a failed connect or a lost connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReconnectOptions {
  /**
   * Delays between attempts; when it stops, the transport gives up with the
   * last error. Default: exponential from 100 ms, factor 2, jittered, capped
   * at 10 s, at most 8 consecutive attempts.
   */
  readonly schedule?: internal.AnySchedule | undefined
  /**
   * A connection that stayed up this long resets the schedule. Default 10 s.
   */
  readonly healthyAfterMillis?: number | undefined
  /**
   * The budget before any connection has worked (the session has not yet
   * initialized one): a server that cannot start or a URL that refuses
   * connections is reported quickly, with the last failure as the cause,
   * instead of after the whole `schedule`. Default: 100 ms, 200 ms, 400 ms
   * (4 attempts in 0.7 s).
   *
   * @since 0.2.0
   */
  readonly firstConnect?: internal.AnySchedule | undefined
}

/**
 * A retry the transport is about to make.
 *
 * @since 0.2.0
 * @category models
 */
export interface Retry {
  /** Counts the attempts since the last healthy connection (1 for the first retry). */
  readonly attempt: number
  /** How long the transport waits before the attempt. */
  readonly delay: Duration.Duration
  /** Why the last connect failed, when it was the connect that failed (not a connection that died). */
  readonly lastFailure: McpError.TransportError | undefined
}

/**
 * The explicit hand-off between a connection stream and its consumer. The
 * session provides it while it reads `connections`; `fromConnect` (and any
 * transport that builds its own stream) reads it to learn whether a
 * connection was ever established, and reports each retry before waiting
 * for it. Without one, `fromConnect` counts a successful connect as
 * established.
 *
 * @since 0.2.0
 * @category models
 */
export interface ConnectionObserver {
  /** Whether the consumer has initialized a connection of this stream. */
  readonly established: Effect.Effect<boolean>
  /** Called before the transport waits for its next attempt. */
  readonly retrying: (retry: Retry) => Effect.Effect<void>
}

/**
 * @since 0.2.0
 * @category tags
 */
export const ConnectionObserver: Context.Tag<ConnectionObserver, ConnectionObserver> = internal.observerTag

/**
 * A session to continue instead of starting a new one.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resume {
  /** The server's session id (`Mcp-Session-Id` over HTTP): a secret. */
  readonly sessionId: Redacted.Redacted<string>
  /** The protocol version the session negotiated. */
  readonly protocolVersion: string
  /** The id of the last event read on the server's own stream (the HTTP GET stream), to read on after it. */
  readonly lastEventId: string | undefined
}

/**
 * What a transport learned that a later resume needs.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resumable {
  readonly sessionId?: Redacted.Redacted<string> | undefined
  readonly lastEventId?: string | undefined
}

/**
 * The explicit hand-off for resuming a session, provided by the session
 * while it reads `connections` (next to `ConnectionObserver`). A transport
 * that can resume asks `resume` when it connects and, when it gets one and
 * the server still knows the session, yields a connection marked `resumed`;
 * it reports through `save` the session id and event ids it learns. The
 * transport reads nothing of the protocol for this: the session hands it
 * the version. Without one, or for transports that cannot resume (stdio),
 * every session starts with `initialize`.
 *
 * @since 0.2.0
 * @category tags
 */
export class Resumption extends Context.Tag("@mcp-effect/core/McpTransport/Resumption")<
  Resumption,
  {
    /** The session to continue, or `undefined` for a new one. */
    readonly resume: Effect.Effect<Resume | undefined>
    /** Reports what a later resume needs, as the transport learns it. */
    readonly save: (update: Resumable) => Effect.Effect<void>
  }
>() {}

/**
 * The default reconnect schedule: exponential from 100 ms (factor 2),
 * jittered, each delay capped at 10 s, 8 consecutive attempts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultReconnectSchedule: internal.AnySchedule = internal.defaultSchedule

/**
 * Builds the connection stream from a scoped `connect`. The first connect
 * happens at once; every later one (after a failed connect or after the
 * previous connection ended) waits for the next delay of the schedule: of
 * `firstConnect` until a connection has been established (see
 * `ConnectionObserver`), of `schedule` after. A connection that lived for
 * `healthyAfterMillis` resets the schedule.
 *
 * `giveUp` (since 0.2.0) is for failures retrying cannot help (a program
 * that does not exist): once it has failed, the stream fails with its error
 * instead of trying again. It is looked at before each attempt and after a
 * failed one, so fail it before `connect` fails. It costs no fiber, unlike
 * `Stream.interruptWhenDeferred`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromConnect: (
  connect: Effect.Effect<Connection, McpError.TransportError, Scope.Scope>,
  options?: ReconnectOptions,
  giveUp?: Deferred.Deferred<never, McpError.TransportError>
) => Stream.Stream<Connection, McpError.TransportError> = internal.fromConnect

/**
 * `Stream.suspend` for a connection stream with state of its own for each
 * run (each session that reads it).
 *
 * @deprecated since 0.4.0: use `make`, whose runs the session reads without
 * stream stages (a stream's stages stay in memory as long as the session).
 * @since 0.2.0
 * @category constructors
 */
export const suspend: (
  make: () => Stream.Stream<Connection, McpError.TransportError>
) => Stream.Stream<Connection, McpError.TransportError> = Stream.suspend

/**
 * Builds a transport's service from what each run connects with: `run` is
 * called once per run (each session that reads the transport), so what it
 * makes (a `giveUp`) belongs to that run. The service's `connections` is
 * `fromConnect`'s stream, and its `open` the same runs without a stream.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make: (run: () => Connector, endpoint?: string) => McpTransport["Type"] = internal.make

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  connect: Effect.Effect<Connection, McpError.TransportError, Scope.Scope>,
  options?: ReconnectOptions
): Layer.Layer<McpTransport> => Layer.succeed(McpTransport, make(() => ({ connect, reconnect: options })))

/**
 * The read side of a connection's inbound buffer: what the session uses.
 *
 * @since 0.5.0
 * @category models
 */
export interface Inbound {
  /**
   * Hands what waits to `onMessages`, then each batch as it is offered
   * (synchronously, in order), in one step no interruption can split, and
   * returns a function that stops it (messages offered later wait again).
   * Once the link is gone and every message was handed on, calls `onEnd`
   * once with how it ended: the error, or `undefined` when the peer closed
   * it cleanly.
   */
  readonly listen: (
    onMessages: (messages: ReadonlyArray<JsonRpc.Incoming>) => void,
    onEnd: (error: ConnectionError | undefined) => void
  ) => () => void
}

/**
 * The inbound side of one connection, for transports: what the transport's
 * readers hand over, until the session takes it (`Inbound.listen`). Give
 * it to the `Connection` as `inbound`.
 *
 * - Bounded: a batch is taken while fewer than `capacity` messages wait
 *   (so a batch is never split, and the buffer may exceed `capacity` by
 *   one batch); `offerNow` answers `false` (taking nothing) when full, and
 *   `offer` waits for room, which a transport whose input can be paused
 *   (HTTP, through TCP; stdio, by pausing the pipe) uses. Nothing is
 *   dropped silently: a transport that cannot pause (WebSocket) ends the
 *   connection when `offerNow` refuses. While the session listens, every
 *   batch goes straight to it (the session bounds its own backlog).
 * - `end` records how the link ended (the first end wins; no error for a
 *   clean end); the session is told once the waiting messages are taken.
 *   Input offered after it is ignored.
 *
 * Its members are methods: call them on the buffer.
 *
 * @since 0.4.0
 * @category models
 */
export interface InboundBuffer extends Inbound {
  readonly offer: (messages: ReadonlyArray<JsonRpc.Incoming>) => Effect.Effect<void>
  readonly offerNow: (messages: ReadonlyArray<JsonRpc.Incoming>) => boolean
  /** Ends the link: with `error`, or cleanly without one (since 0.5.0). */
  readonly end: (error?: ConnectionError) => void
  /** `end` with an error, as an effect. */
  readonly fail: (error: ConnectionError) => Effect.Effect<void>
  /** Messages waiting. */
  readonly size: () => number
}

/**
 * A bounded inbound buffer of `capacity` messages (see `InboundBuffer`).
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeInboundBuffer: (capacity: number) => InboundBuffer = inboundBuffer.make

/**
 * A connection's inbound messages as a `Stream` that ends (or fails) as
 * the link does: for tools and tests that read a connection by hand. The
 * session does not use it (it listens to `inbound` directly).
 *
 * @since 0.5.0
 * @category combinators
 */
export const incoming: (connection: Connection) => Stream.Stream<JsonRpc.Incoming, ConnectionError> = (connection) =>
  inboundBuffer.toStream(connection.inbound)
