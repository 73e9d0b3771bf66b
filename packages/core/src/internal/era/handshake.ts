/**
 * The session's handshake: the `server/discover` probe of the modern era,
 * falling back to the legacy `initialize` (the rule is in
 * `negotiation.ts`). Each opening comes from the codec of its era, among
 * those the session was made with; with one era, the offer never names the
 * other, so its branch is never taken and its code never bundled. The era a server spoke is remembered and
 * tried first on the next connection (and, with a `SessionStore`, by later
 * sessions of the same server: at most one failing probe per server); a
 * legacy server that answers `initialize` with `-32022` naming a modern
 * version is probed after all, and a remembered modern era that fails falls
 * back to `initialize` as a first probe does.
 *
 * In the modern era every request's `_meta` carries the version, client
 * info, capabilities and the log level `setLoggingLevel` chose (`decorate`,
 * the 2026 codec's, applied when a request is sent, so a
 * request queued before the handshake finished carries the version it
 * agreed on).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import type * as SessionModel from "../engine/sessionModel.js"
import * as Methods from "../methods.js"
import type { Codec2025, Codec2026, EraCodec, Handshake, HandshakeContext } from "./codec.js"
import { handOff } from "./codecs.js"
import { modernCapabilities, versionIn } from "./meta.js"
import * as Negotiation from "./negotiation.js"

/**
 * The probe's own budget: a legacy server that drops `server/discover`
 * unanswered (or answers it under an id that matches nothing, as
 * @effect/ai 0.37's server does with `"id": -32603`) costs at most this
 * before `initialize` is sent (and once per server with a `SessionStore`,
 * which remembers the era). A slow modern server that misses it is not
 * lost: it refuses `initialize` with `-32022` and is probed again.
 *
 * @internal
 */
export const probeBudget: Duration.Duration = Duration.seconds(5)

/**
 * The negotiating handshake, and the log level its decoration sends.
 *
 * @internal
 */
export interface NegotiatingHandshake extends Handshake {
  readonly decorate: NonNullable<Handshake["decorate"]>
  /** What the transport is told with a message (the era codec's `sendOptions`). */
  readonly sendOptions: (
    method: string,
    params: Record<string, unknown> | undefined
  ) => McpTransport.SendOptions | undefined
  /** The level every 2026-era request carries in its `_meta` from now on. */
  readonly setLogLevel: (level: McpSchema.LoggingLevel) => void
}

/**
 * The negotiating handshake of a session.
 *
 * @internal
 */
export const make = (options: {
  readonly offer: Negotiation.Offer
  /**
   * The codecs the session was made with: the only place either era's
   * opening comes from. An offer names versions of these eras only.
   */
  readonly codecs: ReadonlyArray<EraCodec>
  readonly clientInfo: McpSchema.Implementation
  readonly capabilities: McpSchema.ClientCapabilities
  /** How long `initialize` may take; each `server/discover` probe a third of it, at most `probeBudget`. */
  readonly timeout: Duration.DurationInput
  /** The era the server spoke last (remembered by a `SessionStore`): tried first. */
  readonly spoken?: Negotiation.Era | undefined
  /** Told the era the server spoke, each time a handshake succeeds. */
  readonly onSpoken?: ((era: Negotiation.Era) => Effect.Effect<void>) | undefined
  /** The `Mcp-*` headers a 2026-era message mirrors (the app's `RequestHeaders`), when there is one. */
  readonly headersFor?: ((method: string, params: unknown) => Record<string, string>) | undefined
}): NegotiatingHandshake => {
  const identity = { clientInfo: options.clientInfo, capabilities: modernCapabilities(options.capabilities) }
  const legacy = options.codecs.find((codec): codec is Codec2025 => codec.era === "legacy")
  const modern = options.codecs.find((codec): codec is Codec2026 => codec.era === "modern")
  /** The modern version agreed on the current connection; `undefined` in the legacy era. */
  let modernVersion: string | undefined
  /** The level `setLoggingLevel` chose (sent in 2026-era requests' `_meta`). */
  let logLevel: McpSchema.LoggingLevel | undefined
  /** What the last server spoke: tried first on the next connection (and by later sessions, when stored). */
  let learned: Negotiation.Era | undefined = options.spoken
  /** whether `learned` was seen on a connection of this session (else it is what a store remembered) */
  let confirmed = false
  const spoke = (era: Negotiation.Era) =>
    Effect.suspend(() => {
      learned = era
      confirmed = true
      return options.onSpoken === undefined ? Effect.void : options.onSpoken(era)
    })

  /** The 2025 era's opening: `initialize` (the era, not the 2024-11-05 HTTP+SSE transport). */
  const initialize2025 = (context: HandshakeContext, version: string) =>
    // (called only for a legacy version, which the offer names only when the session has the 2025 codec)
    legacy!.initialize({
      protocolVersion: version,
      capabilities: options.capabilities,
      clientInfo: options.clientInfo,
      timeout: options.timeout
    }).run(context).pipe(
      Effect.tap(() => spoke("legacy"))
    )

  /** The 2026-07-28 era's opening: the `server/discover` probe, falling back to `initialize2025`. */
  const discover2026 = (context: HandshakeContext, offer: Negotiation.Offer) =>
    Effect.flatMap(
      // a budget of its own: a legacy server that ignores the probe gets `initialize` soon after
      // (called only with modern versions, which the offer names only when the session has the 2026 codec)
      modern!.discover(
        context.request,
        offer,
        identity,
        Duration.min(Duration.unsafeDivide(Duration.decode(options.timeout), 3), probeBudget)
      ),
      (outcome): Effect.Effect<SessionModel.Initialized, McpError.McpClientError> => {
        if (outcome._tag === "Legacy") return initialize2025(context, outcome.version)
        modernVersion = outcome.initialized.protocolVersion
        return Effect.as(
          Effect.zipRight(spoke("modern"), handOff(context.connection, outcome.initialized.protocolVersion)),
          { ...outcome.initialized, generation: context.generation }
        )
      }
    )

  /** A legacy server refusing `initialize` with a modern version on its list: it was upgraded. */
  const upgraded = (error: McpError.McpClientError): string | undefined => {
    if (error._tag !== "ProtocolError" || error.code !== McpError.ErrorCode.UnsupportedProtocolVersion) return undefined
    const version = Negotiation.choose(options.offer, Negotiation.supportedOf(error))
    return version !== undefined && Negotiation.isModernVersion(version) ? version : undefined
  }

  const run = (context: HandshakeContext) =>
    Effect.suspend(() => {
      modernVersion = undefined
      const { offer } = options
      if (offer.modern.length === 0 || (learned === "legacy" && offer.legacy !== undefined)) {
        return initialize2025(context, offer.legacy!).pipe(
          Effect.catchAll((error) => {
            const version = upgraded(error)
            if (version !== undefined) return discover2026(context, { ...offer, modern: [version] })
            // a remembered era the server refuses is forgotten: the next connection probes as a first one does
            // (not when the server could not be reached: that says nothing of its era)
            if (!confirmed && Negotiation.classify(offer, offer.legacy!, error)._tag !== "Lost") learned = undefined
            return Effect.fail(error)
          })
        )
      }
      return discover2026(context, offer)
    })

  const decorate: NegotiatingHandshake["decorate"] = (method, params) =>
    modernVersion === undefined || modern === undefined ?
      params :
      modern.decorate(method, params, { version: modernVersion, identity, logLevel })

  const sendOptions: NegotiatingHandshake["sendOptions"] = (method, params) => {
    if (modern === undefined) return legacy?.sendOptions(method, params, undefined)
    if (modernVersion !== undefined) {
      return modern.sendOptions(method, params, {
        version: modernVersion,
        identity,
        logLevel,
        headersFor: options.headersFor
      })
    }
    // before a version is agreed on, the modern probe goes out under the version its envelope offers
    const probed = Methods.lookup(method)?.era === "modern" ? versionIn(params) : undefined
    return probed !== undefined ?
      modern.sendOptions(method, params, {
        version: probed,
        identity,
        logLevel,
        headersFor: options.headersFor
      }) :
      legacy?.sendOptions(method, params, undefined)
  }

  return {
    run,
    decorate,
    sendOptions,
    setLogLevel: (level) => {
      logLevel = level
    }
  }
}
