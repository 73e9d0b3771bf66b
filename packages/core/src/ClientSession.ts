/**
 * The protocol engine under `McpClient`: one logical session over a stream of
 * connections. It owns request ids, pending requests, timeouts, progress,
 * cancellation, server-to-client requests, initialization and the replay
 * policy after a reconnect.
 *
 * Most apps use `McpClient`; `ClientSession` is for sending methods the typed
 * client does not cover.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Model from "./internal/engine/sessionModel.js"
import * as Eras from "./internal/era/eras.js"
import * as Negotiation from "./internal/era/negotiation.js"
import * as Handlers from "./internal/handlers.js"
import * as internal from "./internal/session.js"
import type * as McpTransport from "./McpTransport.js"
import type * as ProtocolEra from "./ProtocolEra.js"

/**
 * What initialization agreed on.
 *
 * @since 0.1.0
 * @category models
 */
export type Initialized = Model.Initialized

/**
 * The two protocol eras: `"legacy"` revisions open with an `initialize`
 * handshake (2025-11-25 and earlier); `"modern"` ones are stateless and put
 * the version, client info and capabilities in the `_meta` of every request
 * (2026-07-28).
 *
 * @since 0.2.0
 * @category models
 */
export type Era = Model.Era

/**
 * The era of a protocol version (of `Initialized.protocolVersion`, say).
 *
 * @since 0.2.0
 * @category utils
 */
export const eraOf: (protocolVersion: string) => Era = Negotiation.eraOf

/**
 * @since 0.1.0
 * @category models
 */
export type ConnectionState = Model.ConnectionState

/**
 * A timeout setting: a duration, or `"none"` for no limit.
 *
 * @since 0.1.0
 * @category models
 */
export type Timeout = Model.Timeout

/**
 * @since 0.1.0
 * @category models
 */
export type RequestOptions = Model.RequestOptions

/**
 * Answers one kind of server-to-client request. Fail with a
 * `McpError.ProtocolError` to answer with that JSON-RPC error.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerRequestHandler = Model.ServerRequestHandler

/**
 * @since 0.1.0
 * @category models
 */
export type Options = Model.Options

/**
 * Counters of the session's inbound buffers.
 *
 * @since 0.2.0
 * @category models
 */
export type Stats = Model.Stats

/**
 * @since 0.1.0
 * @category models
 */
export type Service = Model.Service

/**
 * @since 0.1.0
 * @category tags
 */
export class ClientSession extends Context.Tag("@mcp-effect/core/ClientSession")<ClientSession, Service>() {}

/**
 * Starts a session over the transport's connections, speaking only the
 * given eras (`ProtocolEra2025.era`, `ProtocolEra2026.era`): with one era,
 * the app bundles none of the other's code. The session negotiates among
 * them as `make` does between both (`Options.era` and
 * `Options.protocolVersion` narrow the offer further and must name an era
 * among them). No era at all, or options that name another one, close the
 * session at once with a `TransportError` (phase `"options"`).
 *
 * @example
 * ```ts
 * import { ClientSession, ProtocolEra2026 } from "@mcp-effect/core"
 *
 * // a session that speaks only 2026-07-28
 * const session = ClientSession.makeWith([ProtocolEra2026.era], { clientInfo: { name: "app", version: "1.0.0" } })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeWith = (
  eras: ReadonlyArray<ProtocolEra.ProtocolEra>,
  options: Options
): Effect.Effect<Service, never, McpTransport.McpTransport | Scope.Scope> => internal.make(options, Eras.codecsOf(eras))

/**
 * Starts a session over the transport's connections. The session lives as
 * long as the scope. It speaks both eras (`makeWith` with
 * `ProtocolEra2026.era` and `ProtocolEra2025.era`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, never, McpTransport.McpTransport | Scope.Scope> =>
  makeWith(Eras.both, options)

/**
 * `layer`, speaking only the given eras (see `makeWith`): with one era, the
 * app bundles none of the other's code.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (
  eras: ReadonlyArray<ProtocolEra.ProtocolEra>,
  options: Options
): Layer.Layer<ClientSession, never, McpTransport.McpTransport> =>
  Layer.scoped(
    ClientSession,
    Effect.gen(function*() {
      const fromContext = yield* Handlers.fromContext
      const session = yield* makeWith(eras, {
        ...options,
        capabilities: { ...fromContext.capabilities, ...options.capabilities },
        handlers: { ...fromContext.handlers, ...options.handlers }
      })
      yield* fromContext.announceRoots(session)
      return session
    })
  )

/**
 * The session as a service, for several services to share (an `McpClient`
 * on it with `McpClient.layerOnSession`, raw requests of your own) or to
 * replace with a test double. Like `McpClient.layer`, it answers sampling,
 * elicitation and roots requests, and advertises those capabilities, when
 * `Sampling`, `Elicitation` or `Roots` are in the context; `handlers` and
 * `capabilities` of the options are added to (and win over) them. With a
 * `server` name and a `SessionStore` in the context, the session resumes
 * the stored one across restarts. It speaks both eras (`layerWith` for one).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<ClientSession, never, McpTransport.McpTransport> =>
  layerWith(Eras.both, options)

/**
 * Methods replayed after a reconnect unless a request says otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const replayableMethods: ReadonlySet<string> = internal.replayableMethods
