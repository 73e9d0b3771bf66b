import type * as Headers from "@effect/platform/Headers"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as McpError from "@mcp-effect/core/McpError"
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as HttpAuth from "../HttpAuth.js"
import * as Blocked from "./blocked.js"
import * as Body from "./body.js"
import { type Config, describeUrl } from "./config.js"
import * as Redirect from "./redirect.js"
import type * as RequestRefs from "./requestRefs.js"
import * as WwwAuthenticate from "./wwwAuthenticate.js"

/** @internal */
export interface Exchange {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url?: URL | undefined
  readonly body?: string | undefined
  readonly rpcMethod?: string | undefined
  readonly accept: string
  readonly headers: Readonly<Record<string, string>>
  /** where this request belongs, for errors: "post", "get", "resume", "delete", "legacy-get", "legacy-post" */
  readonly phase: string
  readonly connectTimeout: boolean
  /**
   * A request of protocol 2026-07-28 sent before the server accepted one:
   * a browser blocking it (CORS refusing the `Mcp-*` headers) tells the era,
   * not that the server is unreachable.
   */
  readonly modernProbe?: boolean | undefined
}

/** @internal */
export type ExchangeError = McpError.TransportError | McpError.Unauthorized | McpError.InsufficientScope

/** @internal */
export type Execute = (exchange: Exchange) => Effect.Effect<HttpClientResponse.HttpClientResponse, ExchangeError>

/** Plain words for the socket errors people meet most. */
const errorCodes: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed TLS certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted"
}

const causeText = (u: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = u
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const e = current as { readonly message?: unknown; readonly code?: unknown; readonly cause?: unknown }
    if (typeof e.code === "string") {
      parts.push(errorCodes[e.code] === undefined ? e.code : `${errorCodes[e.code]} (${e.code})`)
    } else if (typeof e.message === "string" && e.message !== "") parts.push(e.message)
    current = e.cause
  }
  return parts.length === 0 ? "unknown error" : parts.join(": ")
}

/**
 * A message for a platform `HttpClientError` that names no header and no
 * query string (platform errors embed the full URL).
 *
 * @internal
 */
export const describeFailure = (error: { readonly reason?: unknown; readonly cause?: unknown }): string =>
  `${String(error.reason ?? "Error")} (${causeText(error.cause)})`

/**
 * A request that did not reach the server at all (refused, reset, no route,
 * a browser's "Failed to fetch"): the server is gone or unreachable, which a
 * connection must not outlive (its state would say Ready while nothing
 * works). A missing answer (`phase: "connect"`, the headers timeout), a
 * refused first request of protocol 2026-07-28 (which tells the era) and a
 * failure of the auth hook (`phase: "auth"`: the authorization server, not
 * this one, failed) are not.
 *
 * @internal
 */
export const isUnreachable = (error: ExchangeError): boolean =>
  error._tag === "TransportError" && error.reason === "Connect" && error.phase !== "connect" &&
  error.phase !== "options" && error.phase !== "auth" && error.phase !== Blocked.modernProbePhase

/** @internal */
export const httpError = (config: Config, phase: string, status: number, method: string): McpError.TransportError =>
  new McpError.TransportError({
    reason: "Http",
    phase,
    status,
    message: `${method} ${config.description} answered HTTP ${status}`
  })

/**
 * Reads at most `max` bytes of a body. Stops reading (and aborts the
 * request) once the limit is crossed. `owner`: see `Body.read`.
 *
 * @internal
 */
export const readLimited = (
  config: Config,
  response: HttpClientResponse.HttpClientResponse,
  max: number,
  phase: string,
  owner?: Body.Owner
): Effect.Effect<Option.Option<string>, McpError.TransportError> =>
  Effect.suspend(() => {
    const parts: Array<Uint8Array> = []
    let size = 0
    let tooLarge = false
    return Body.read<never>(
      response,
      (chunk) => {
        size += chunk.length
        if (size > max) {
          tooLarge = true
          return false
        }
        parts.push(chunk)
        return true
      },
      undefined,
      owner
    ).pipe(
      Effect.mapError((error) =>
        new McpError.TransportError({
          reason: "Read",
          phase,
          message: `reading the body from ${config.description} failed: ${describeFailure(bodyFailure(error))}`
        })
      ),
      Effect.map(() => {
        if (tooLarge) return Option.none()
        if (parts.length === 1) return Option.some(utf8.decode(parts[0]))
        const all = new Uint8Array(size)
        let offset = 0
        for (const part of parts) {
          all.set(part, offset)
          offset += part.length
        }
        return Option.some(utf8.decode(all))
      })
    )
  })

const utf8 = new TextDecoder()

/**
 * A body that broke, described as the platform describes it (`Decode`, with
 * the cause the body's source gave).
 *
 * @internal
 */
export const bodyFailure = (error: Body.Failed) => ({ reason: "Decode", cause: error.cause })

/** @internal reads and drops a (small) body so the connection can be reused */
export const discard = (config: Config, response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.ignore(readLimited(config, response, 64 * 1024, "discard"))

/** Longest text of a server's challenge kept in a message. */
const maxServerText = 300

/**
 * A server's words as an error message shows them: neutralised (no escape
 * sequence, line break, control or bidi character rewrites the line a
 * person reads; a header value may carry C1 controls) and capped.
 */
const serverText = (text: string): string => {
  const shown = Redaction.neutralize(text, "line")
  return shown.length > maxServerText ? `${shown.slice(0, maxServerText - 3)}...` : shown
}

const challengeError = (
  config: Config,
  info: HttpAuth.ChallengeInfo
): McpError.Unauthorized | McpError.InsufficientScope => {
  const params = info.wwwAuthenticate?.params ?? {}
  const detail = params.error_description ?? params.error
  const suffix = detail === undefined ? "" : ` (${serverText(detail)})`
  if (info.status === 403 && params.error === "insufficient_scope") {
    return new McpError.InsufficientScope({
      message: `${config.description} needs more scopes${suffix}`,
      ...(params.scope !== undefined ? { scope: params.scope } : {})
    })
  }
  return new McpError.Unauthorized({
    message: `${config.description} answered HTTP ${info.status}${suffix}`,
    reauthorize: info.status === 401
  })
}

/**
 * Sends one HTTP request with the static, hook and protocol headers; maps
 * transport failures to `TransportError`, handles `401` / `403` with the
 * auth hook (one retry per kind of challenge, so a `401` answered by a new
 * authorization can still be followed by a `403` step-up), and leaves every
 * other status to the caller. Requests run with the transport's
 * `RequestRefs` (trace settings, redacted header names, manual redirects).
 *
 * @internal
 */
export const makeExecute = (
  config: Config,
  client: HttpClient.HttpClient,
  auth: Option.Option<HttpAuth.Service>,
  refs: RequestRefs.RequestRefs
): Execute =>
(exchange) => {
  const url = exchange.url ?? config.url
  const hook = Option.getOrUndefined(auth)
  const info: HttpAuth.RequestInfo = {
    url: url.toString(),
    method: exchange.method,
    rpcMethod: exchange.rpcMethod
  }
  const send = (hookHeaders: Record<string, string> | undefined) => {
    const headers: Record<string, string> = {
      ...config.staticHeaders,
      ...exchange.headers,
      accept: exchange.accept
    }
    const hookNames: Array<string> = []
    if (hookHeaders !== undefined) {
      for (const [name, value] of Object.entries(hookHeaders)) {
        headers[name.toLowerCase()] = value
        hookNames.push(name.toLowerCase())
      }
    }
    const execute = refs.around(
      Redirect.follow(
        {
          client,
          method: exchange.method,
          url,
          headers,
          body: exchange.body,
          origin: config.url.origin,
          maxRedirects: config.maxRedirects,
          discard: (response) => discard(config, response)
        },
        (hop, e) =>
          Blocked.isBrowserFetchFailure(e) ?
            Blocked.blockedError({
              method: exchange.method,
              target: describeUrl(hop),
              phase: exchange.modernProbe ? Blocked.modernProbePhase : exchange.phase,
              headers: [...Object.keys(headers), ...(exchange.body === undefined ? [] : ["content-type"])],
              tracePropagation: config.tracePropagation
            }) :
            new McpError.TransportError({
              reason: "Connect",
              phase: exchange.phase,
              message: `${exchange.method} ${describeUrl(hop)} failed: ${describeFailure(e)}`
            }),
        exchange.phase
      ),
      hookNames
    )
    return exchange.connectTimeout
      ? Effect.timeoutFail(execute, {
        duration: config.connectMillis,
        onTimeout: () =>
          new McpError.TransportError({
            reason: "Connect",
            phase: "connect",
            message: `${exchange.method} ${describeUrl(url)} sent no response headers within ${config.connectMillis} ms`
          })
      })
      : execute
  }
  const challenged = (
    response: HttpClientResponse.HttpClientResponse,
    status: 401 | 403,
    headers: Headers.Headers,
    retried: ReadonlyArray<number | "nonce">
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, ExchangeError> =>
    Effect.flatMap(discard(config, response), () => {
      const header = headers["www-authenticate"]
      const challenges = header === undefined ? [] : WwwAuthenticate.parse(header)
      const nonce = headers["dpop-nonce"]
      const challenge: HttpAuth.ChallengeInfo = {
        status,
        url: info.url,
        wwwAuthenticate: challenges.find((c) => c.scheme.toLowerCase() === "bearer") ?? challenges[0],
        challenges,
        ...(nonce === undefined ? {} : { nonce })
      }
      const kind = HttpAuth.isNonceChallenge(challenge) ? "nonce" : status
      if (retried.includes(kind) || hook === undefined) return Effect.fail(challengeError(config, challenge))
      return Effect.flatMap(
        hook.onChallenge(challenge),
        (decision) =>
          decision === "retry" ? attempt([...retried, kind]) : Effect.fail(challengeError(config, challenge))
      )
    })
  const attempt = (
    retried: ReadonlyArray<number | "nonce">
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, ExchangeError> =>
    Effect.flatMap(
      hook === undefined ? send(undefined) : Effect.flatMap(hook.headers(info), send),
      (response) => {
        const status = response.status
        if (status === 401 || status === 403) return challenged(response, status, response.headers, retried)
        const onResponse = hook?.onResponse
        if (onResponse === undefined) return Effect.succeed(response)
        return Effect.as(onResponse({ url: info.url, status, nonce: response.headers["dpop-nonce"] }), response)
      }
    )
  return attempt([])
}
