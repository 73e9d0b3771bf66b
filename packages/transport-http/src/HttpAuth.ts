/**
 * The auth hook of the HTTP transport. A Layer providing `HttpAuth` (an
 * OAuth client, for example) supplies headers for every request and is told
 * about `401` / `403` challenges; after a challenge it answered with
 * `"retry"`, the transport sends the request once more with fresh headers
 * (each kind of challenge at most once per request: `401`, `403`, and a `401`
 * asking for a DPoP nonce, `error="use_dpop_nonce"`, RFC 9449 §9).
 *
 * Headers are asked for on every request, with its method and URL, so a hook
 * can sign each one (a DPoP proof).
 *
 * The hook is optional: without it, static credentials from the transport
 * options are used and a challenge fails at once.
 *
 * @since 0.1.0
 */
import type { McpError } from "@mcp-effect/core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as internal from "./internal/wwwAuthenticate.js"

/**
 * What the transport is about to send.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestInfo {
  /** The URL the request goes to. */
  readonly url: string
  readonly method: "GET" | "POST" | "DELETE"
  /** The JSON-RPC method carried by a POST, when it carries one. */
  readonly rpcMethod?: string | undefined
}

/**
 * One challenge of a `WWW-Authenticate` header. Parameter names are
 * lower-cased (`realm`, `scope`, `error`, `error_description`,
 * `resource_metadata`, ...).
 *
 * @since 0.1.0
 * @category models
 */
export interface Challenge {
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
  readonly token68?: string | undefined
}

/**
 * A `401` or `403` answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChallengeInfo {
  readonly status: 401 | 403
  /** The URL that answered. */
  readonly url: string
  /** The `Bearer` challenge when there is one, else the first one. */
  readonly wwwAuthenticate: Challenge | undefined
  /** Every challenge of the `WWW-Authenticate` header, in order. */
  readonly challenges: ReadonlyArray<Challenge>
  /**
   * The `DPoP-Nonce` header of the answer (RFC 9449 §9), when it has one.
   *
   * @since 0.2.0
   */
  readonly nonce?: string | undefined
}

/**
 * An answer that is not a `401` / `403`.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResponseInfo {
  /** The URL that answered. */
  readonly url: string
  readonly status: number
  /** The `DPoP-Nonce` header of the answer (RFC 9449 §8.2), when it has one. */
  readonly nonce?: string | undefined
}

/**
 * Whether a challenge asks for a DPoP nonce (`error="use_dpop_nonce"`, RFC
 * 9449 §9): the transport counts it apart from other `401`s, so a request
 * can be sent again for a new token and then once more with the nonce.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isNonceChallenge = (info: Pick<ChallengeInfo, "status" | "challenges">): boolean =>
  info.status === 401 && info.challenges.some((c) => c.params.error === "use_dpop_nonce")

/**
 * `"retry"`: send the request once more (with headers asked for again);
 * `"fail"`: give up with the transport's own error for the status.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision = "retry" | "fail"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Headers for one request (for example `Authorization`). Values are treated as secrets.
   * A `TransportError` (say, the authorization server is down) is retried like any failed connection;
   * `Unauthorized` is final.
   */
  readonly headers: (
    request: RequestInfo
  ) => Effect.Effect<Record<string, string>, McpError.Unauthorized | McpError.TransportError>
  /** Told about a `401` / `403`; decides whether the request is sent once more. Errors as for `headers`. */
  readonly onChallenge: (
    challenge: ChallengeInfo
  ) => Effect.Effect<Decision, McpError.Unauthorized | McpError.InsufficientScope | McpError.TransportError>
  /**
   * Told about every other answer, before it is read: a DPoP client takes the new `DPoP-Nonce` of a
   * successful response here (RFC 9449 §8.2) and uses it on the next request instead of waiting for a `401`.
   *
   * @since 0.2.0
   */
  readonly onResponse?: ((response: ResponseInfo) => Effect.Effect<void>) | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class HttpAuth extends Context.Tag("@mcp-effect/transport-http/HttpAuth")<HttpAuth, Service>() {}

/**
 * Reads a `WWW-Authenticate` header value into its challenges.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseWwwAuthenticate: (header: string) => ReadonlyArray<Challenge> = internal.parse
