/**
 * Runs `oauth4webapi` requests as Effects: HTTP through our `fetch` (the
 * `UrlPolicy` and `HttpClient`), failures as `OAuthError` without tokens.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as oauth from "oauth4webapi"
import { OAuthError, type Reason } from "../OAuthError.js"
import type * as Http from "./http.js"
import * as Wire from "./wire.js"

/** @internal options for every `oauth4webapi` request: our fetch; the `UrlPolicy` decides about `http:` */
export const requestOptions = (http: Http.Http) => ({
  [oauth.customFetch]: http.fetch as <M, B>(url: string, options: oauth.CustomFetchOptions<M, B>) => Promise<Response>,
  [oauth.allowInsecureRequests]: true
})

/** @internal */
export const toOAuthError = (reason: Reason) => (cause: unknown): OAuthError => {
  if (cause instanceof OAuthError) return cause
  if (Runtime.isFiberFailure(cause)) {
    const failure = Cause.failureOption(cause[Runtime.FiberFailureCauseId])
    if (Option.isSome(failure) && failure.value instanceof OAuthError) return failure.value
  }
  if (cause instanceof oauth.ResponseBodyError) {
    return new OAuthError({
      reason: cause.error === "invalid_grant" ? "InvalidGrant" : reason,
      message: Wire.describeRefusal(cause.error, cause.error_description),
      error: cause.error,
      status: cause.status
    })
  }
  if (cause instanceof oauth.AuthorizationResponseError) {
    return new OAuthError({
      reason: "Authorization",
      message: Wire.describeRefusal(cause.error, cause.error_description),
      error: cause.error
    })
  }
  if (cause instanceof oauth.WWWAuthenticateChallengeError) {
    const error = cause.cause[0]?.parameters.error ?? "invalid_client"
    return new OAuthError({
      reason,
      message: `${Wire.describeRefusal(error, undefined)}: the server refused the client (HTTP ${cause.status})`,
      error,
      status: cause.status
    })
  }
  // a response that is not the expected one and carries no OAuth error body (a 503 page, ...): keep its status
  if (cause instanceof oauth.OperationProcessingError && cause.cause instanceof Response) {
    return new OAuthError({
      reason,
      message: `${cause.message} (HTTP ${cause.cause.status})`,
      status: cause.cause.status
    })
  }
  return new OAuthError({ reason, message: cause instanceof Error ? cause.message : String(cause) })
}

/** @internal options of one request, aborted when the fiber is interrupted */
export type RequestOptions = ReturnType<typeof requestOptions> & { readonly signal: AbortSignal }

/** @internal sends a request and processes its response */
export const call = <A>(
  http: Http.Http,
  reason: Reason,
  request: (options: RequestOptions) => Promise<Response>,
  process: (response: Response) => Promise<A>
): Effect.Effect<A, OAuthError> =>
  Effect.tryPromise({
    try: async (signal) => process(await request({ ...requestOptions(http), signal })),
    catch: toOAuthError(reason)
  })
