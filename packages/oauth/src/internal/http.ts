/**
 * All OAuth HTTP goes through `@effect/platform`'s `HttpClient` (so the same
 * code runs in Node and browsers) and through the `UrlPolicy` first. Two
 * faces: `getJson` for metadata documents (redirects followed by hand, each
 * hop checked), and `fetch`, a `fetch`-shaped function handed to
 * `oauth4webapi` as its `customFetch`.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import { HostResolver } from "../HostResolver.js"
import { OAuthError } from "../OAuthError.js"
import * as UrlPolicy from "../UrlPolicy.js"
import * as Dpop from "./dpop.js"

/** Largest response body read (metadata, token responses). */
const maxBodyBytes = 1024 * 1024
const maxRedirects = 3

/** @internal */
export interface Http {
  readonly policy: UrlPolicy.UrlPolicy
  /** GETs a JSON document; `None` when the server answers with a non-2xx status. */
  readonly getJson: (url: URL, what: string) => Effect.Effect<Option.Option<unknown>, OAuthError>
  /** Sends one request with redirects not followed; for `oauth4webapi`. */
  readonly fetch: (url: string, init: FetchInit) => Promise<Response>
  readonly client: HttpClient.HttpClient
  /** DPoP, when the Layer turned it on: proofs on token requests, nonces from every answer. */
  readonly dpop?: Dpop.Session | undefined
}

/** @internal */
export interface FetchInit {
  readonly method?: string | undefined
  readonly headers?: HeadersInit | undefined
  readonly body?: unknown
  readonly signal?: AbortSignal | null | undefined
}

/**
 * A browser's `fetch` rejects a request refused by CORS (or lost to the
 * network) with a bare `TypeError` ("Failed to fetch" in Chromium,
 * "NetworkError ..." in Firefox, "Load failed" in Safari).
 */
const blockedByBrowser = (cause: unknown): boolean => {
  const inner = (cause as { readonly cause?: unknown } | undefined)?.cause
  return inner instanceof TypeError && /^(Failed to fetch|NetworkError|Load failed)/.test(inner.message)
}

const httpError = (what: string, url: URL) => (cause: unknown) =>
  new OAuthError({
    reason: "Http",
    message: `${what} ${url.origin}${url.pathname} could not be fetched: ${
      blockedByBrowser(cause)
        ? "request blocked (CORS or network): the server must be reachable and allow this origin"
        : Redaction.text(cause instanceof Error ? cause.message : String(cause))
    }`
  })

/**
 * With `redirect: "manual"` a browser answers a redirect with an opaque
 * response: status 0, no `Location`. Its target cannot be checked against the
 * policy, so it is an error, never a missing document.
 */
const opaqueRedirect = (what: string, url: URL) =>
  new OAuthError({
    reason: "Discovery",
    message: `${what} ${url.origin}${url.pathname} answered with a redirect the browser hides from scripts ` +
      `(an opaque redirect): where it leads cannot be checked, so it is not followed. ` +
      `Serve the document at this URL without a redirect`
  })

const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  what: string
): Effect.Effect<Uint8Array, OAuthError> =>
  response.stream.pipe(
    Stream.mapError(() => new OAuthError({ reason: "Http", message: `${what}: the response body could not be read` })),
    Stream.runFoldEffect({ size: 0, parts: [] as Array<Uint8Array> }, (acc, bytes) => {
      acc.parts.push(bytes)
      acc.size += bytes.length
      return acc.size > maxBodyBytes
        ? Effect.fail(
          new OAuthError({ reason: "Http", message: `${what}: the response is larger than ${maxBodyBytes} bytes` })
        )
        : Effect.succeed(acc)
    }),
    Effect.map(({ parts, size }) => {
      const all = new Uint8Array(size)
      let offset = 0
      for (const part of parts) {
        all.set(part, offset)
        offset += part.length
      }
      return all
    })
  )

/**
 * @internal sends requests without following redirects (fetch's `redirect: "manual"`; other
 * clients do not follow by default), keeping any `RequestInit` the app provided
 */
export const withoutRedirects = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transformResponse(
    client,
    (effect) =>
      Effect.flatMap(Effect.serviceOption(FetchHttpClient.RequestInit), (init) =>
        Effect.provideService(effect, FetchHttpClient.RequestInit, {
          ...Option.getOrElse(init, () => ({})),
          redirect: "manual"
        }))
  )

const nullBodyStatus = new Set([101, 103, 204, 205, 304])

/** @internal */
export const make = (
  policy: UrlPolicy.UrlPolicy,
  options?: { readonly tracePropagation?: boolean | undefined; readonly dpop?: Dpop.Session | undefined }
): Effect.Effect<Http, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    // trace headers only when asked for: in a browser each one needs the server's CORS permission;
    // spans without query values or Location codes
    const client = HttpClient.withTracerPropagation(
      Redaction.httpClient(withoutRedirects(yield* HttpClient.HttpClient)),
      options?.tracePropagation ?? false
    )
    const runtime = yield* Effect.runtime<never>()
    const resolver = yield* Effect.serviceOption(HostResolver)
    /** The literal check, then the addresses the host name resolves to (with a `HostResolver` where the Layer was built). */
    const guard = (url: string | URL, what: string): Effect.Effect<URL, OAuthError> =>
      Effect.flatMap(UrlPolicy.check(url, policy, what), (checked) =>
        Option.match(resolver, {
          onNone: () => Effect.succeed(checked),
          onSome: (service) =>
            Effect.provideService(UrlPolicy.checkAddresses(checked, policy, what), HostResolver, service)
        }))

    const getJson = (url: URL, what: string): Effect.Effect<Option.Option<unknown>, OAuthError> =>
      Effect.gen(function*() {
        let current = yield* guard(url, what)
        for (let hop = 0; hop <= maxRedirects; hop++) {
          const target = current
          const outcome = yield* Effect.scoped(Effect.gen(function*() {
            const response = yield* client.execute(
              HttpClientRequest.get(target, { headers: { accept: "application/json" } })
            )
              .pipe(Effect.mapError(httpError(what, target)))
            if (response.status === 0) return yield* opaqueRedirect(what, target)
            const location = response.headers["location"]
            if (response.status >= 300 && response.status < 400 && location !== undefined) {
              return { _tag: "Redirect", location } as const
            }
            // the server is there but failing: not "no metadata here", which would send discovery elsewhere
            if (response.status >= 500 || response.status === 429) {
              return { _tag: "Unavailable", status: response.status } as const
            }
            if (response.status < 200 || response.status >= 300) {
              return { _tag: "Missing" } as const
            }
            return { _tag: "Body", body: yield* readBody(response, what) } as const
          }))
          switch (outcome._tag) {
            case "Redirect":
              current = yield* guard(
                yield* Effect.try({
                  try: () => new URL(outcome.location, target),
                  catch: () =>
                    new OAuthError({
                      reason: "Http",
                      message: `${what} ${target.origin}${target.pathname} redirected to an unusable Location`
                    })
                }),
                `${what} (redirect)`
              )
              continue
            case "Unavailable":
              return yield* new OAuthError({
                reason: "Http",
                message: `${what} ${target.origin}${target.pathname} answered HTTP ${outcome.status}`,
                status: outcome.status
              })
            case "Missing":
              return Option.none()
            case "Body":
              try {
                return Option.some(JSON.parse(new TextDecoder().decode(outcome.body)) as unknown)
              } catch {
                return yield* new OAuthError({ reason: "Discovery", message: `${what} is not JSON` })
              }
          }
        }
        return yield* new OAuthError({ reason: "Discovery", message: `${what}: too many redirects` })
      })

    const send = (url: string, init: FetchInit): Effect.Effect<Response, OAuthError> =>
      Effect.gen(function*() {
        const target = yield* guard(url, "OAuth endpoint")
        const headers: Record<string, string> = {}
        new Headers(init.headers).forEach((value, name) => (headers[name] = value))
        let request = HttpClientRequest.make((init.method ?? "GET") as "GET")(target, { headers })
        if (init.body instanceof URLSearchParams) {
          request = HttpClientRequest.bodyText(request, init.body.toString(), "application/x-www-form-urlencoded")
        } else if (typeof init.body === "string") {
          request = HttpClientRequest.bodyText(request, init.body, headers["content-type"] ?? "application/json")
        }
        const response = yield* client.execute(request).pipe(Effect.mapError(httpError("OAuth endpoint", target)))
        if (response.status === 0) return yield* opaqueRedirect("OAuth endpoint", target)
        const nonce = response.headers["dpop-nonce"]
        if (options?.dpop !== undefined && nonce !== undefined) yield* Dpop.rememberNonce(options.dpop, target, nonce)
        const body = yield* readBody(response, "OAuth endpoint")
        return new Response(nullBodyStatus.has(response.status) ? null : (body as Uint8Array<ArrayBuffer>), {
          status: response.status,
          headers: response.headers as Record<string, string>
        })
      }).pipe(Effect.scoped)

    const fetch = (url: string, init: FetchInit): Promise<Response> =>
      Runtime.runPromise(runtime)(send(url, init), init.signal ? { signal: init.signal } : undefined)

    return { policy, getJson, fetch, client, dpop: options?.dpop }
  })
