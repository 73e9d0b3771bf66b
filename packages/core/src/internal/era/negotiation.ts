/**
 * Which protocol era to speak with a server, and how the two eras are told
 * apart on the wire. Pure functions: the handshake (`discover.ts`) runs them.
 *
 * The rule: offer the modern versions first (newest first), then the legacy
 * one. A server that answers `server/discover` is modern; one that refuses
 * the version with `-32022` names those it supports, and the newest version
 * both sides speak is tried next; any other error (or a non-modern HTTP 4xx)
 * means a legacy server, which gets `initialize`. Pinning a version or an
 * era narrows the offer to it.
 */
import * as Either from "effect/Either"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import type * as SessionModel from "../engine/sessionModel.js"

/** @internal */
export type Era = SessionModel.Era

const modernVersions: ReadonlyArray<string> = McpSchema.MODERN_PROTOCOL_VERSIONS
const legacyVersions: ReadonlyArray<string> = McpSchema.SUPPORTED_PROTOCOL_VERSIONS

/** @internal */
export const isModernVersion = (version: string): boolean => modernVersions.includes(version)

/** @internal */
export const eraOf = (version: string): Era => isModernVersion(version) ? "modern" : "legacy"

/**
 * What a session offers: the modern versions to try, newest first (empty:
 * never probe), and the version `initialize` offers (`undefined`: never fall
 * back to the legacy era).
 *
 * @internal
 */
export interface Offer {
  readonly modern: ReadonlyArray<string>
  readonly legacy: string | undefined
}

const notMadeWith = "the session was not made with this era (ProtocolEra2025 / ProtocolEra2026)"

/**
 * The offer of a session's options, among the eras it was made with
 * (`available`: the eras of its codecs). A pinned `protocolVersion` decides
 * the era; `era` narrows the default offer; both must agree with each other
 * and with the eras available.
 *
 * @internal
 */
export const offerOf = (
  options: Pick<SessionModel.Options, "era" | "protocolVersion">,
  available: ReadonlyArray<{ readonly era: Era }>
): Either.Either<Offer, McpError.TransportError> => {
  const invalid = (message: string) =>
    Either.left(
      new McpError.TransportError({ reason: "Connect", phase: "options", message: `invalid options: ${message}` })
    )
  const has = (era: Era) => available.some((codec) => codec.era === era)
  if (available.length === 0) return invalid(`no protocol era: ${notMadeWith}`)
  const era = options.era ?? "auto"
  const pinned = options.protocolVersion
  if (pinned !== undefined) {
    const pinnedEra = eraOf(pinned)
    if (era !== "auto" && era !== pinnedEra) {
      return invalid(`protocolVersion ${pinned} belongs to the ${pinnedEra} era, but era is "${era}"`)
    }
    if (!has(pinnedEra)) return invalid(`protocolVersion ${pinned}: ${notMadeWith}`)
    return Either.right(
      pinnedEra === "modern" ? { modern: [pinned], legacy: undefined } : { modern: [], legacy: pinned }
    )
  }
  if (era !== "auto" && !has(era)) return invalid(`era "${era}": ${notMadeWith}`)
  return Either.right({
    modern: era === "legacy" || !has("modern") ? [] : modernVersions,
    legacy: era === "modern" || !has("legacy") ? undefined : McpSchema.LATEST_PROTOCOL_VERSION
  })
}

/**
 * The versions a server listed in `-32022`'s `data.supported`.
 *
 * @internal
 */
export const supportedOf = (error: McpError.ProtocolError): ReadonlyArray<string> => {
  const supported = (error.data as { readonly supported?: unknown } | undefined)?.supported
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === "string") : []
}

/**
 * The version to use with a server that speaks `supported`: the first of the
 * offer (newest first) the server lists, modern before legacy.
 *
 * @internal
 */
export const choose = (offer: Offer, supported: ReadonlyArray<string>): string | undefined => {
  const modern = offer.modern.find((version) => supported.includes(version))
  if (modern !== undefined) return modern
  if (offer.legacy === undefined) return undefined
  // a pinned legacy version is offered as is; otherwise the newest legacy version the server lists
  return offer.legacy !== McpSchema.LATEST_PROTOCOL_VERSION ?
    (supported.includes(offer.legacy) ? offer.legacy : undefined) :
    legacyVersions.find((version) => supported.includes(version))
}

/**
 * Modern error codes: an error with one of these comes from a modern server
 * (it read the request's `_meta`), however it ends.
 */
const modernCodes: ReadonlySet<number> = new Set([
  McpError.ErrorCode.UnsupportedProtocolVersion,
  McpError.ErrorCode.HeaderMismatch,
  McpError.ErrorCode.MissingRequiredClientCapability
])

/**
 * How a probe (`server/discover`, or the first modern request) failed.
 *
 * - `Retry`: the server is modern and refused the version; `version` is the
 *   newest both speak (a legacy version means `initialize` with it).
 * - `Legacy`: not a modern answer; the server is legacy.
 * - `Fatal`: stop (a modern refusal with no common version, auth failures,
 *   an answer that does not decode).
 * - `Lost`: the connection failed; try the next one.
 *
 * @internal
 */
export type ProbeFailure =
  | { readonly _tag: "Retry"; readonly version: string }
  | { readonly _tag: "Legacy"; readonly error: McpError.McpClientError }
  | { readonly _tag: "Fatal"; readonly error: McpError.McpClientError }
  | { readonly _tag: "Lost"; readonly error: McpError.McpClientError }

/** @internal */
export const classify = (offer: Offer, requested: string, error: McpError.McpClientError): ProbeFailure => {
  switch (error._tag) {
    case "ProtocolError": {
      if (!modernCodes.has(error.code)) return { _tag: "Legacy", error }
      if (error.code !== McpError.ErrorCode.UnsupportedProtocolVersion) return { _tag: "Fatal", error }
      const version = choose(offer, supportedOf(error))
      return version === undefined ?
        { _tag: "Fatal", error: explainRefusal(offer, requested, error) } :
        { _tag: "Retry", version }
    }
    // a legacy server does not answer an unknown method before `initialize`
    case "RequestTimeout":
      return { _tag: "Legacy", error }
    // an HTTP status with no modern error in its body: a legacy HTTP server; so is a browser that blocked
    // the probe (phase "modern-blocked", set by the HTTP transport): the server's CORS does not allow the
    // modern `Mcp-*` headers, so from this page it can only be spoken to in the legacy era
    case "TransportError":
      return error.phase === "modern-blocked" ?
        { _tag: "Legacy", error } :
        error.reason === "Http" && error.status !== undefined && error.status >= 400 && error.status < 500 &&
          error.status !== 401 && error.status !== 403 ?
        { _tag: "Legacy", error } :
        { _tag: "Lost", error }
    case "Unauthorized":
    case "InsufficientScope":
    case "DecodeError":
      return { _tag: "Fatal", error }
    default:
      return { _tag: "Lost", error }
  }
}

/**
 * A refusal naming no version this client speaks: the message says what each side offered.
 *
 * @internal
 */
export const explainRefusal = (
  offer: Offer,
  requested: string,
  error: McpError.ProtocolError
): McpError.ProtocolError => {
  const supported = supportedOf(error)
  const ours = [...offer.modern, ...(offer.legacy !== undefined ? [offer.legacy] : [])]
  return new McpError.ProtocolError({
    ...error,
    message: `${error.message}: this client offered ${requested} (speaks ${ours.join(", ")})` +
      (supported.length > 0 ? `, the server supports ${supported.join(", ")}` : "")
  })
}
