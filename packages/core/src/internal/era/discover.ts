/**
 * The handshake of the modern era: `server/discover`, sent with the modern
 * `_meta`, retried with a common version when the server refuses the one
 * offered (`-32022`), and telling a legacy server (any other answer) apart
 * so the session can fall back to `initialize`.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import { checker } from "../engine/decode.js"
import type * as SessionModel from "../engine/sessionModel.js"
import { MetaKey } from "../wire/schema/modern.js"
import { type Identity, withModernMeta } from "./meta.js"
import * as Negotiation from "./negotiation.js"

/**
 * A request on the connection being opened.
 *
 * @internal
 */
export type Request = (
  method: string,
  params: Record<string, unknown>,
  options: SessionModel.RequestOptions
) => Effect.Effect<unknown, McpError.McpClientError>

/**
 * What the probe found: a modern server (and what it said about itself), or
 * a legacy one to open with `initialize` offering `version`.
 *
 * @internal
 */
export type Outcome =
  | { readonly _tag: "Modern"; readonly initialized: Omit<SessionModel.Initialized, "generation"> }
  | { readonly _tag: "Legacy"; readonly version: string }

/** How many times a refused version may be replaced by another before giving up. */
const maxAttempts = 3

const decodeDiscover = checker(McpSchema.DiscoverResult)
const decodeImplementation = checker(McpSchema.Implementation)

/** A server that names itself nowhere. */
const anonymous: McpSchema.Implementation = { name: "unknown", version: "unknown" }

const serverInfoOf = (result: McpSchema.DiscoverResult): McpSchema.Implementation => {
  const fromMeta = decodeImplementation(result._meta?.[MetaKey.ServerInfo])
  if (fromMeta._tag === "Right") return fromMeta.right
  return result.serverInfo ?? anonymous
}

/**
 * Probes with `server/discover`, offering `offer.modern` newest first.
 * Fails with the error the session handles as it handles a failed
 * `initialize` (a `ProtocolError` or `DecodeError` ends the session).
 *
 * @internal
 */
export const discover = (
  request: Request,
  offer: Negotiation.Offer,
  identity: Identity,
  timeout: Duration.DurationInput
): Effect.Effect<Outcome, McpError.McpClientError> => {
  const legacyOr = (error: McpError.McpClientError): Effect.Effect<Outcome, McpError.McpClientError> =>
    offer.legacy !== undefined ?
      Effect.succeed({ _tag: "Legacy", version: offer.legacy }) :
      Effect.fail(
        new McpError.ProtocolError({
          code: error._tag === "ProtocolError" ? error.code : McpError.ErrorCode.UnsupportedProtocolVersion,
          method: "server/discover",
          message: `the server does not speak the modern era (${error.message}), and this session offers only ` +
            offer.modern.join(", ")
        })
      )

  const attempt = (version: string, left: number): Effect.Effect<Outcome, McpError.McpClientError> =>
    request(
      "server/discover",
      withModernMeta({}, version, identity),
      { timeout, replay: false, resetTimeoutOnProgress: false }
    ).pipe(
      Effect.matchEffect({
        onFailure: (error) => {
          const failure = Negotiation.classify(offer, version, error)
          switch (failure._tag) {
            case "Retry":
              return Negotiation.isModernVersion(failure.version) ?
                (left > 1 ? attempt(failure.version, left - 1) : Effect.fail(error)) :
                Effect.succeed<Outcome>({ _tag: "Legacy", version: failure.version })
            case "Legacy":
              return error._tag === "RequestTimeout" ?
                // a legacy server that drops unknown requests, or answers them under an id that matches nothing
                Effect.zipRight(
                  Effect.logDebug(`mcp: no answer to server/discover within ${error.millis} ms; trying initialize`),
                  legacyOr(error)
                ) :
                legacyOr(error)
            case "Fatal":
            case "Lost":
              return Effect.fail(failure.error)
          }
        },
        onSuccess: (raw) => {
          const decoded = decodeDiscover(raw)
          if (decoded._tag === "Left") {
            // not what a modern server answers: a legacy server that answers unknown methods with anything
            const error = new McpError.DecodeError({
              reason: "Schema",
              method: "server/discover",
              message: `invalid server/discover result: ${decoded.left}`
            })
            return offer.legacy !== undefined ? legacyOr(error) : Effect.fail(error)
          }
          const result = decoded.right
          if (!result.supportedVersions.includes(version)) {
            // the server answered, but lists other versions: the newest both speak
            const next = Negotiation.choose(offer, result.supportedVersions)
            if (next === undefined) {
              return Effect.fail(
                new McpError.ProtocolError({
                  code: McpError.ErrorCode.UnsupportedProtocolVersion,
                  method: "server/discover",
                  message: `the server speaks ${result.supportedVersions.join(", ")}, none of which this client ` +
                    `offered (${[...offer.modern, ...(offer.legacy ? [offer.legacy] : [])].join(", ")})`
                })
              )
            }
            if (!Negotiation.isModernVersion(next)) return Effect.succeed<Outcome>({ _tag: "Legacy", version: next })
            if (left <= 1 || next === version) {
              return Effect.fail(
                new McpError.DecodeError({
                  reason: "Schema",
                  method: "server/discover",
                  message: `the server keeps answering server/discover without listing ${version}`
                })
              )
            }
            return attempt(next, left - 1)
          }
          return Effect.succeed<Outcome>({
            _tag: "Modern",
            initialized: {
              protocolVersion: version,
              serverInfo: serverInfoOf(result),
              capabilities: result.capabilities,
              instructions: result.instructions,
              supportedVersions: result.supportedVersions
            }
          })
        }
      })
    )

  const first = offer.modern[0]
  return first === undefined ?
    legacyOr(
      new McpError.ProtocolError({ code: McpError.ErrorCode.InvalidRequest, message: "no modern version offered" })
    ) :
    attempt(first, maxAttempts)
}
