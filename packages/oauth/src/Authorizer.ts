/**
 * The interactive step of the authorization-code flow, supplied by the app:
 * given the authorization URL, bring the user there and hand back the
 * query parameters of the redirect (`code`, `state`, `iss` or `error`).
 *
 * The flow checks `state` and `iss` itself; an authorizer only transports.
 * Layers: `NodeAuthorizer` (loopback callback server), `BrowserAuthorizer`
 * (popup or full-page redirect), and here the headless ones — `makeHeadless`
 * (hand the URL out, accept the callback later) and `layerFollowRedirect`
 * (for servers that answer the authorization request with an immediate
 * redirect, like test servers).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Http from "./internal/http.js"
import { OAuthError } from "./OAuthError.js"
import * as UrlPolicy from "./UrlPolicy.js"

/**
 * One authorization the user has to complete.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthorizationRequest {
  /** Where to send the user. */
  readonly url: URL
  /** The `state` of this request; the callback carries it back. */
  readonly state: string
  readonly redirectUri: string
}

/**
 * One interactive authorization in progress (for example a loopback server
 * that listens until the callback arrives).
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  /** The redirect URI to register and send. */
  readonly redirectUri: string
  /** Sends the user to the request's URL and yields the callback's query parameters. */
  readonly authorize: (request: AuthorizationRequest) => Effect.Effect<URLSearchParams, OAuthError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Prepares one authorization; its resources are released with the scope. */
  readonly session: Effect.Effect<Session, OAuthError, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Authorizer extends Context.Tag("@mcp-effect/oauth/Authorizer")<Authorizer, Service>() {}

/**
 * An authorizer with a fixed redirect URI and a function doing the
 * interactive part.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  redirectUri: string,
  authorize: (request: AuthorizationRequest) => Effect.Effect<URLSearchParams, OAuthError>
): Service => ({ session: Effect.succeed({ redirectUri, authorize }) })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  redirectUri: string,
  authorize: (request: AuthorizationRequest) => Effect.Effect<URLSearchParams, OAuthError>
): Layer.Layer<Authorizer> => Layer.succeed(Authorizer, make(redirectUri, authorize))

/**
 * Reads the query parameters of a callback URL (or a bare query string).
 *
 * @since 0.1.0
 * @category parsing
 */
export const callbackParameters = (callback: string | URL | URLSearchParams): URLSearchParams => {
  if (callback instanceof URLSearchParams) return new URLSearchParams(callback)
  if (callback instanceof URL) return new URLSearchParams(callback.search)
  try {
    return new URLSearchParams(new URL(callback).search)
  } catch {
    return new URLSearchParams(callback.startsWith("?") ? callback.slice(1) : callback)
  }
}

/**
 * A headless authorizer and its two ends: `requests` yields every
 * authorization the user has to complete; `complete` hands back the
 * callback (URL, query string or parameters), matched by `state`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Headless {
  readonly authorizer: Service
  readonly requests: Queue.Dequeue<AuthorizationRequest>
  readonly complete: (callback: string | URL | URLSearchParams) => Effect.Effect<void, OAuthError>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeHeadless = (redirectUri: string): Effect.Effect<Headless> =>
  Effect.gen(function*() {
    const requests = yield* Queue.unbounded<AuthorizationRequest>()
    const waiting = new Map<string, Deferred.Deferred<URLSearchParams>>()
    const authorize = (request: AuthorizationRequest) =>
      Effect.acquireUseRelease(
        Effect.tap(Deferred.make<URLSearchParams>(), (deferred) =>
          Effect.sync(() => waiting.set(request.state, deferred))),
        (deferred) =>
          Effect.zipRight(Queue.offer(requests, request), Deferred.await(deferred)),
        () => Effect.sync(() => waiting.delete(request.state))
      )
    const complete = (callback: string | URL | URLSearchParams) =>
      Effect.suspend(() => {
        const params = callbackParameters(callback)
        const deferred = waiting.get(params.get("state") ?? "")
        return deferred === undefined
          ? Effect.fail(
            new OAuthError({ reason: "Interaction", message: "no authorization is waiting for this callback" })
          )
          : Deferred.succeed(deferred, params).pipe(Effect.asVoid)
      })
    return { authorizer: make(redirectUri, authorize), requests, complete }
  })

/**
 * For authorization servers that answer the authorization request at once
 * with a redirect (test servers, the conformance suite's mock): sends the
 * request without following redirects and reads the callback from the
 * `Location` header, which must point at `redirectUri`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFollowRedirect = (options: {
  readonly redirectUri: string
  readonly policy?: UrlPolicy.UrlPolicy | undefined
}): Layer.Layer<Authorizer, never, HttpClient.HttpClient> =>
  Layer.effect(
    Authorizer,
    Effect.gen(function*() {
      // the answer's Location carries the code: its span gets it redacted
      const client = Redaction.httpClient(Http.withoutRedirects(yield* HttpClient.HttpClient))
      const expected = new URL(options.redirectUri)
      const authorize = (request: AuthorizationRequest) =>
        Effect.gen(function*() {
          const url = yield* UrlPolicy.check(request.url, options.policy ?? UrlPolicy.strict, "authorization endpoint")
          const response = yield* client.execute(HttpClientRequest.get(url)).pipe(
            Effect.scoped,
            Effect.mapError(() =>
              new OAuthError({ reason: "Interaction", message: `authorization request to ${url.origin} failed` })
            )
          )
          const location = response.headers["location"]
          if (response.status < 300 || response.status >= 400 || location === undefined) {
            return yield* new OAuthError({
              reason: "Interaction",
              message: `authorization endpoint answered HTTP ${response.status}, not a redirect`
            })
          }
          const target = yield* Effect.try({
            try: () => new URL(location, url),
            catch: () =>
              new OAuthError({
                reason: "Interaction",
                message: "authorization endpoint redirected to an unusable Location"
              })
          })
          if (target.origin !== expected.origin || target.pathname !== expected.pathname) {
            return yield* new OAuthError({
              reason: "Interaction",
              message: "authorization endpoint redirected elsewhere"
            })
          }
          return callbackParameters(target)
        })
      return make(options.redirectUri, authorize)
    })
  )
