/**
 * The authorization-code flow with PKCE (S256 only), `state`, `resource`
 * and the RFC 9207 `iss` check; with DPoP, the code is bound to the key
 * (`dpop_jkt`). The PKCE verifier, state and DPoP key are kept in the
 * `TokenStore` while the user is away, so a full-page redirect can finish
 * the flow after the page loads again (`complete`).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as oauth from "oauth4webapi"
import type * as Authorizer from "../Authorizer.js"
import { OAuthError } from "../OAuthError.js"
import * as Scopes from "../Scopes.js"
import type * as TokenStore from "../TokenStore.js"
import * as Dpop from "./dpop.js"
import type * as Engine from "./engine.js"
import * as Grants from "./grants.js"
import * as Identity from "./identity.js"

const resolveInput = (flow: Engine.Flow): Identity.ResolveInput => ({
  http: flow.http,
  as: flow.discovered.authorizationServer,
  issuer: flow.discovered.issuer,
  store: flow.store,
  options: flow.client
})

const storeError = (operation: string) => (error: TokenStore.TokenStoreError) =>
  new OAuthError({ reason: "Store", message: `token store ${operation} failed: ${error.message}` })

/** @internal */
export const grant = (authorizer: Authorizer.Service, offlineAccess: boolean): Engine.Grant => ({
  interactive: true,
  offlineAccess,
  identity: (flow) => Identity.resolve(resolveInput(flow), undefined),
  obtain: (flow, scopes) =>
    Effect.scoped(Effect.gen(function*() {
      const as = flow.discovered.authorizationServer
      yield* Grants.requireS256(as)
      const session = yield* authorizer.session
      const identity = yield* Identity.resolve(resolveInput(flow), session.redirectUri)
      const codeVerifier = Redacted.make(oauth.generateRandomCodeVerifier())
      const state = oauth.generateRandomState()
      const scope = Scopes.format(scopes)
      const dpop = flow.http.dpop
      const dpopKey = dpop === undefined ? undefined : yield* Dpop.authorizationKey(dpop, as)
      const url = yield* Grants.authorizationUrl(flow.http, as, {
        clientId: identity.client.client_id,
        redirectUri: session.redirectUri,
        codeVerifier: Redacted.value(codeVerifier),
        state,
        resource: flow.key.resource,
        scope,
        dpopJkt: dpopKey?.thumbprint
      })
      const createdAt = yield* Clock.currentTimeMillis
      yield* Effect.acquireRelease(
        flow.store.setPending({
          state,
          codeVerifier,
          redirectUri: session.redirectUri,
          key: flow.key,
          clientId: identity.client.client_id,
          scope,
          createdAt,
          ...(dpopKey === undefined ? {} : { dpopKey })
        }).pipe(Effect.mapError(storeError("write"))),
        () => Effect.ignore(flow.store.deletePending(state))
      )
      const callback = yield* session.authorize({ url, state, redirectUri: session.redirectUri })
      // the code is bound to this key: it is the one the exchange proves, whatever was read meanwhile
      if (dpop !== undefined && dpopKey !== undefined) yield* Dpop.adopt(dpop, dpopKey)
      const response = yield* Grants.exchangeCode(flow.http, as, {
        identity,
        callback,
        state,
        redirectUri: session.redirectUri,
        codeVerifier,
        resource: flow.key.resource
      })
      return yield* Grants.toTokens(response, scope)
    }))
})

/**
 * @internal finishes a flow whose callback arrived in another page load
 * (full-page redirect): finds the pending request by `state`
 */
export const complete = (flow: Engine.Flow, callback: URLSearchParams): Effect.Effect<void, OAuthError> =>
  Effect.gen(function*() {
    const state = callback.get("state")
    const pending = state === null
      ? Option.none()
      : yield* flow.store.getPending(state).pipe(Effect.mapError(storeError("read")))
    if (Option.isNone(pending)) {
      return yield* new OAuthError({ reason: "Authorization", message: "no pending authorization for this state" })
    }
    const request = pending.value
    yield* flow.store.deletePending(request.state).pipe(Effect.mapError(storeError("delete")))
    if (request.key.resource !== flow.key.resource || request.key.issuer !== flow.key.issuer) {
      return yield* new OAuthError({
        reason: "Authorization",
        message: "the pending authorization belongs to another server"
      })
    }
    const identity = yield* Identity.resolve(resolveInput(flow), undefined)
    if (identity.client.client_id !== request.clientId) {
      return yield* new OAuthError({ reason: "Authorization", message: "the client registration changed meanwhile" })
    }
    if (request.dpopKey !== undefined) {
      // the code is bound to the key of the page that asked for it (dpop_jkt); this page load starts without it
      if (flow.http.dpop === undefined) {
        return yield* new OAuthError({
          reason: "Configuration",
          message: "the pending authorization is bound to a DPoP key, but the dpop option is off"
        })
      }
      yield* Dpop.adopt(flow.http.dpop, request.dpopKey)
    }
    const response = yield* Grants.exchangeCode(flow.http, flow.discovered.authorizationServer, {
      identity,
      callback,
      state: request.state,
      redirectUri: request.redirectUri,
      codeVerifier: request.codeVerifier,
      resource: flow.key.resource
    })
    const tokens = yield* Grants.toTokens(response, request.scope)
    yield* flow.store.setTokens(flow.key, tokens).pipe(Effect.mapError(storeError("write")))
  })
