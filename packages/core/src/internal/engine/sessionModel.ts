/**
 * The session's models: what it is asked with (`Options`, `RequestOptions`,
 * `ServerRequestHandler`), what it tells (`Initialized`, `ConnectionState`,
 * `Stats`) and the shape of its service. They live below the engine so that
 * every part of it (the pending table, the eras, the handlers) can name them
 * without importing `ClientSession`, which assembles the engine; the public
 * module re-exports each under its own name.
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Subscribable from "effect/Subscribable"
import type * as JsonRpc from "../../JsonRpc.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"

/**
 * What initialization agreed on.
 *
 * @internal
 */
export interface Initialized {
  readonly protocolVersion: string
  readonly serverInfo: McpSchema.Implementation
  readonly capabilities: McpSchema.ServerCapabilities
  readonly instructions: string | undefined
  /** Counts connections: 1 for the first, one more after each reconnect. */
  readonly generation: number
  /**
   * Set when this connection resumed a session from the `SessionStore`
   * instead of initializing: what the server still holds for it.
   *
   * @since 0.2.0
   */
  readonly restored?: {
    readonly subscriptions: ReadonlyArray<string>
    readonly loggingLevel: McpSchema.LoggingLevel | undefined
  } | undefined
  /**
   * The versions the server said it speaks (`server/discover`), for a
   * server of the modern era; `undefined` after `initialize`.
   *
   * @since 0.2.0
   */
  readonly supportedVersions?: ReadonlyArray<string> | undefined
}

/**
 * The two protocol eras: `"legacy"` revisions open with an `initialize`
 * handshake (2025-11-25 and earlier); `"modern"` ones are stateless and put
 * the version, client info and capabilities in the `_meta` of every request
 * (2026-07-28).
 *
 * @internal
 */
export type Era = "modern" | "legacy"

/** @internal */
export type ConnectionState =
  | { readonly _tag: "Connecting"; readonly generation: number }
  | { readonly _tag: "Ready"; readonly initialized: Initialized }
  | {
    readonly _tag: "Reconnecting"
    /** The generation the next connection will have. */
    readonly generation: number
    /** Why the last connection or attempt failed. */
    readonly reason: string
    /** The last failure as a typed error, when there was one. */
    readonly lastFailure: McpError.McpClientError | undefined
    /**
     * The attempt the transport waits for (1 for the first retry); `0` until
     * the transport has scheduled one.
     */
    readonly attempt: number
    /** How long the transport waits before that attempt, once scheduled. */
    readonly nextDelay: Duration.Duration | undefined
  }
  | { readonly _tag: "Closed"; readonly error: McpError.McpClientError | undefined }

/**
 * A timeout setting: a duration, or `"none"` for no limit.
 *
 * @internal
 */
export type Timeout = Duration.DurationInput | "none"

/** @internal */
export interface RequestOptions {
  /** Idle budget: how long to wait with no response and no progress. Default: the session's `requestTimeout`. */
  readonly timeout?: Timeout | undefined
  /** Hard maximum however much progress arrives. Default: the session's `maxTotalTimeout`. */
  readonly maxTotalTimeout?: Timeout | undefined
  /**
   * Whether progress resets the idle budget; a progress token is then always
   * sent. Default `true` for `tools/call`, `resources/read`, `prompts/get`
   * and `tasks/result`, `false` for other methods.
   */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /** Called for each progress notification of this request. */
  readonly onProgress?: ((progress: McpSchema.ProgressNotificationParams) => void) | undefined
  /**
   * Whether the request may be sent again on a new connection when the
   * connection dies after it was sent. Default: `true` for reads and lists,
   * `false` for `tools/call` and `tasks/cancel`.
   */
  readonly replay?: boolean | undefined
  /** For errors: the tool a `tools/call` runs. */
  readonly toolName?: string | undefined
}

/**
 * Answers one kind of server-to-client request. Fail with a
 * `McpError.ProtocolError` to answer with that JSON-RPC error.
 *
 * @internal
 */
export type ServerRequestHandler = (
  params: Record<string, unknown>,
  context: { readonly requestId: JsonRpc.RequestId }
) => Effect.Effect<unknown, McpError.ProtocolError>

/** @internal */
export interface Options {
  readonly clientInfo: McpSchema.Implementation
  /**
   * The server's name in this app. With a `SessionStore` in the context, the
   * session is stored under it and resumed from it on the next start (see
   * `SessionStore`); without a name nothing is stored.
   *
   * @since 0.2.0
   */
  readonly server?: string | undefined
  readonly capabilities?: McpSchema.ClientCapabilities | undefined
  /**
   * Pins the protocol version, and with it the era: a modern version
   * (`McpSchema.MODERN_PROTOCOL_VERSION`) is the only one tried, a legacy one
   * is offered in `initialize` with no `server/discover` probe first (the
   * server may still answer `initialize` with an older legacy version).
   * Default: negotiated (see `era`).
   */
  readonly protocolVersion?: string | undefined
  /**
   * Which of the session's eras to try. `"auto"` (the default) probes with
   * `server/discover` offering the modern versions and falls back to
   * `initialize` (offering `McpSchema.LATEST_PROTOCOL_VERSION`) when the
   * server is not modern; `"modern"` never sends `initialize`; `"legacy"`
   * never probes. The era a server spoke is tried first again after a
   * reconnect.
   *
   * This narrows the offer at run time; the app still bundles both eras. To
   * leave the other era's code out of the bundle, make the session with
   * `layerWith` / `makeWith` and only that era's value
   * (`ProtocolEra2025.era`, `ProtocolEra2026.era`); `era` must then name an
   * era among them.
   *
   * @since 0.2.0
   */
  readonly era?: "auto" | Era | undefined
  /** Server-to-client request handlers by method (`ping` is always answered). */
  readonly handlers?: Readonly<Record<string, ServerRequestHandler>> | undefined
  /** Default idle timeout of a request. Default 60 s. */
  readonly requestTimeout?: Timeout | undefined
  /** Default hard maximum of a request. Default `"none"`. */
  readonly maxTotalTimeout?: Timeout | undefined
  /**
   * How long `initialize` may take; each `server/discover` probe may take a
   * third of it (a legacy server that does not answer the probe in time gets
   * `initialize`). On the first connection it bounds the whole handshake: a
   * server that never completes it ends the session with `RequestTimeout`
   * (`initialize`, `total`) instead of trying more connections. Default 30 s.
   */
  readonly initializeTimeout?: Duration.DurationInput | undefined
  /**
   * Sees every notification (except progress) before it is published to
   * `notifications`; may return an effect to run first. For a reaction that
   * must never miss one: a subscriber to `notifications` reads a sliding queue
   * and loses the oldest when it falls behind.
   */
  readonly onNotification?: ((notification: JsonRpc.Notification) => Effect.Effect<void> | undefined) | undefined
  /** Run after every successful initialization (also after a reconnect), e.g. to re-subscribe. */
  readonly onInitialized?: ((initialized: Initialized) => Effect.Effect<void>) | undefined
  /**
   * How many notifications each subscriber of `notifications` may fall
   * behind; past it the oldest is dropped (and counted in `stats`). Default 1024.
   *
   * @since 0.2.0
   */
  readonly notificationCapacity?: number | undefined
  /**
   * How much inbound work (notifications, server requests, in arrival order)
   * may wait for the session's worker when a transport pushes faster than it
   * runs. Past it, notifications are dropped (and counted in `stats`);
   * responses and server requests are never dropped. Default 4096.
   *
   * @since 0.2.0
   */
  readonly inboundCapacity?: number | undefined
}

/**
 * Counters of the session's inbound buffers.
 *
 * @internal
 */
export interface Stats {
  /** Notifications (and stray malformed input) dropped because a buffer was full, since the session started. */
  readonly droppedNotifications: number
  /** Inbound work waiting for the worker now (at most `inboundCapacity` notifications). */
  readonly backlog: number
  /** Notifications kept now for the slowest subscriber (at most `notificationCapacity`). */
  readonly retainedNotifications: number
  /** Requests waiting for their outcome now. */
  readonly pending: number
}

/** @internal */
export interface Service {
  /** Sends a request and waits for its result (undecoded). Interrupting sends `notifications/cancelled`. */
  readonly request: (
    method: string,
    params?: Record<string, unknown> | undefined,
    options?: RequestOptions
  ) => Effect.Effect<unknown, McpError.McpClientError>
  /** Sends a notification once the session is ready. */
  readonly notify: (
    method: string,
    params?: Record<string, unknown> | undefined
  ) => Effect.Effect<void, McpError.McpClientError>
  /** Waits until the session is initialized and returns what was agreed. */
  readonly initialized: Effect.Effect<Initialized, McpError.McpClientError>
  /** The connection state; its `changes` end after `Closed`. */
  readonly state: Subscribable.Subscribable<ConnectionState>
  /**
   * Every notification from the server, except progress (which goes to its
   * request). A subscriber that falls `notificationCapacity` behind loses the
   * oldest. Ends when the session closes.
   */
  readonly notifications: Stream.Stream<JsonRpc.Notification>
  /**
   * The same notifications, subscribed when the effect returns: nothing sent
   * after that is missed, however late the stream is run. The subscription
   * lasts as long as the scope.
   *
   * @since 0.2.0
   */
  readonly subscribeNotifications: Effect.Effect<Stream.Stream<JsonRpc.Notification>, never, Scope.Scope>
  /** Input that was not a valid message and named no pending request. Ends when the session closes. */
  readonly malformed: Stream.Stream<McpError.DecodeError>
  /**
   * Waits until the session is closed and returns why.
   *
   * @since 0.2.0
   */
  readonly closed: Effect.Effect<McpError.McpClientError>
  /**
   * Counters of the inbound buffers.
   *
   * @since 0.2.0
   */
  readonly stats: Effect.Effect<Stats>
}
