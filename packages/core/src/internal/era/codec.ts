/**
 * The era codec: everything that differs between the two protocol eras
 * this client speaks, behind one interface. The 2025 era (`2025-11-25` and
 * the versions before it, opened with `initialize`; not to be confused with
 * the 2024-11-05 HTTP+SSE *transport*, which is the HTTP transport's
 * business) is `era2025.ts`; the 2026-07-28 era (opened with
 * `server/discover`, state carried in each request's `_meta`) is
 * `era2026.ts`. The client, the task path and the handlers read the codec
 * of the version a session agreed on; none of them asks which era it is.
 * The codecs are the public `ProtocolEra2025.era` / `ProtocolEra2026.era`
 * values: a session is made with a list of them (`codecs.ts`), so an app
 * that offers one era bundles one codec.
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import type * as ProtocolEra from "../../ProtocolEra.js"
import type * as TaskPolling from "../../TaskPolling.js"
import type * as SessionModel from "../engine/sessionModel.js"
import type * as Discover from "./discover.js"
import type * as Listen from "./listen.js"
import type { Identity } from "./meta.js"
import type * as Negotiation from "./negotiation.js"

/** @internal */
export { TypeId } from "../../ProtocolEra.js"

/**
 * Changes a request's params before it is sent: the hook a protocol era
 * uses to put what it needs (2026-07-28: version and client info in
 * `_meta`) into every request.
 *
 * @internal
 */
export type Decorate = (
  method: string,
  params: Record<string, unknown> | undefined
) => Record<string, unknown> | undefined

/**
 * What the transport is told with a message (the era codec's
 * `sendOptions`, of the params as sent).
 *
 * @internal
 */
export type Route = (
  method: string,
  params: Record<string, unknown> | undefined
) => McpTransport.SendOptions | undefined

/**
 * What a handshake may use of the connection it opens: requests bound to
 * that connection (they go through the pending table, with its timeouts),
 * notifications, and the transport's hand-off for the negotiated version.
 *
 * @internal
 */
export interface HandshakeContext {
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options: SessionModel.RequestOptions
  ) => Effect.Effect<unknown, McpError.McpClientError>
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void, McpError.McpClientError>
  readonly connection: McpTransport.Connection
  /** The generation of the connection, for `Initialized`. */
  readonly generation: number
}

/**
 * One protocol era's way to open a connection: it returns what the server
 * and the client agreed on. A handshake must call `connection.negotiated`
 * (when set) as soon as the version is fixed, before anything else is sent.
 *
 * @internal
 */
export interface Handshake {
  readonly run: (context: HandshakeContext) => Effect.Effect<SessionModel.Initialized, McpError.McpClientError>
  /** The era's per-request params decoration (2026-07-28: `_meta` on every request); none for 2025. */
  readonly decorate?: Decorate | undefined
}

/**
 * What the session knows when it decorates a request of the 2026 era.
 *
 * @internal
 */
export interface Envelope {
  readonly version: string
  readonly identity: Identity
  /** The level `setLoggingLevel` chose, sent with every request in the 2026 era. */
  readonly logLevel: McpSchema.LoggingLevel | undefined
  /**
   * The `Mcp-*` headers a message mirrors (the app's `RequestHeaders`, which
   * knows the tools' `Mcp-Param-*` declarations); the standard ones without it.
   */
  readonly headersFor?: ((method: string, params: unknown) => Record<string, string>) | undefined
}

/**
 * How a request's first answer is to be taken.
 *
 * @internal
 */
export type Classified = "complete" | "input_required" | "task"

/**
 * What following a result's rounds needs of the session.
 *
 * @internal
 */
export interface FollowContext {
  /** A request as the follow-up rounds send it (no rounds of its own). */
  readonly request: SessionModel.Service["request"]
  readonly handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>
  readonly polling: TaskPolling.Service
}

/**
 * What every era's codec has.
 *
 * @internal
 */
export interface Common extends ProtocolEra.ProtocolEra {
  /** Whether `method` exists in the era (from the method table). */
  readonly exists: (method: string) => boolean
  /** The params as sent: the 2026 era adds its `_meta` envelope to every request but `initialize`. */
  readonly decorate: (
    method: string,
    params: Record<string, unknown> | undefined,
    envelope: Envelope
  ) => Record<string, unknown> | undefined
  /**
   * What the transport is told with a message of the era (the params as
   * sent): the 2026 era's version and mirrored headers, and which requests
   * open something (`initialize`, `subscriptions/listen`), so that no
   * transport reads them off the message. `undefined` when there is nothing
   * to tell.
   */
  readonly sendOptions: (
    method: string,
    params: Record<string, unknown> | undefined,
    envelope: Envelope | undefined
  ) => McpTransport.SendOptions | undefined
  /** Whether a first answer is the result, asks for input, or is a task handle. */
  readonly classify: (method: string, raw: unknown) => Classified
  /** Follows an answer that is not complete through its rounds to the result. */
  readonly follow: (
    method: string,
    params: Record<string, unknown> | undefined,
    first: unknown,
    requestOptions: SessionModel.RequestOptions | undefined,
    context: FollowContext
  ) => Effect.Effect<unknown, McpError.McpClientError>
  /**
   * How a request in flight is given up: a `notifications/cancelled`
   * notice, or (2026 era) closing the request's own stream where the
   * transport has one, a notice where it has not. The session hands this
   * to the transport with the negotiated version.
   */
  readonly cancel: "notice" | "stream"
  /** Resource subscriptions and list_changed: `resources/subscribe` requests, or one `subscriptions/listen`. */
  readonly subscriptions: "subscribe" | "listen"
  /** How the log level reaches the server: `logging/setLevel`, or the `_meta` of every request. */
  readonly logLevel: "request" | "meta"
  /** Who makes a tool call a task: the client asks (`task` params), or the server answers with a handle. */
  readonly tasks: "client" | "server"
  /**
   * Whether a result may be other than complete (ask for input, or be a
   * task handle): when not, `classify` and `follow` need not run.
   */
  readonly resultRounds: boolean
  /** Whether a change of roots is announced with `notifications/roots/list_changed`. */
  readonly rootsListChanged: boolean
  /** The liveness check: `ping`, or `server/discover` (decorated like any request). */
  readonly ping: { readonly method: string; readonly params: Record<string, unknown> | undefined }
}

/**
 * The 2025 era's codec: it opens a connection with `initialize`.
 *
 * @internal
 */
export interface Codec2025 extends Common {
  readonly era: "legacy"
  /** The `initialize` handshake offering a version (`initialize.ts`). */
  readonly initialize: (options: {
    readonly protocolVersion: string
    readonly capabilities: McpSchema.ClientCapabilities
    readonly clientInfo: McpSchema.Implementation
    readonly timeout: Duration.DurationInput
  }) => Handshake
}

/**
 * The 2026-07-28 era's codec: it opens a connection with the
 * `server/discover` probe and listens with `subscriptions/listen`.
 *
 * @internal
 */
export interface Codec2026 extends Common {
  readonly era: "modern"
  readonly discover: typeof Discover.discover
  readonly listener: typeof Listen.make
}

/**
 * One protocol era. A session reaches an era's code only through its codec,
 * so an app whose sessions are made with one codec bundles one era
 * (`ProtocolEra2025`, `ProtocolEra2026`).
 *
 * @internal
 */
export type EraCodec = Codec2025 | Codec2026

/**
 * What the session hands the transport once the version is fixed
 * (`Connection.negotiated`): the version, and from the codec the era and
 * how a request in flight is given up, so a transport need not re-infer
 * either from the messages it carries. (`McpTransport.Negotiated` names
 * only the version today; a transport may read these fields already.)
 *
 * @internal
 */
export interface Handed extends McpTransport.Negotiated {
  readonly era: Negotiation.Era
  readonly cancel: EraCodec["cancel"]
}
