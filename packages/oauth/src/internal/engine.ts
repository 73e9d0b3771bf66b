/**
 * The OAuth client behind the transport's auth hook, common to every grant:
 * discovery before the first request (stored tokens go out at once) and on
 * a challenge, tokens from the `TokenStore` keyed by (resource, issuer),
 * proactive refresh before expiry, silent refresh on
 * `401`, step-up on `403 insufficient_scope`, and single flight for
 * discovery, refresh and new grants so parallel requests never spend a
 * rotating refresh token twice or start two authorizations.
 *
 * @internal
 */
import * as McpError from "@mcp-effect/core/McpError"
import type { HttpAuth } from "@mcp-effect/transport-http"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Discovery from "../Discovery.js"
import { OAuthError, toMcpError } from "../OAuthError.js"
import * as Scopes from "../Scopes.js"
import type * as TokenStore from "../TokenStore.js"
import type * as UrlPolicy from "../UrlPolicy.js"
import * as Dpop from "./dpop.js"
import * as Grants from "./grants.js"
import type * as Http from "./http.js"
import type * as Identity from "./identity.js"
import * as SingleFlight from "./singleFlight.js"

/** @internal everything a grant needs for one server */
export interface Flow {
  readonly http: Http.Http
  readonly store: TokenStore.Service
  readonly discovered: Discovery.Discovered
  readonly key: TokenStore.TokenKey
  readonly client: Identity.ClientOptions
}

/** @internal how a flow obtains tokens */
export interface Grant {
  /** A person takes part: a refused refresh token means "authorize again" rather than a silent new grant. */
  readonly interactive: boolean
  /** Ask for `offline_access` when the server supports it. */
  readonly offlineAccess: boolean
  readonly obtain: (flow: Flow, scopes: ReadonlyArray<string>) => Effect.Effect<TokenStore.Tokens, OAuthError>
  /** The client identity refresh requests authenticate with. */
  readonly identity: (flow: Flow) => Effect.Effect<Identity.Identity, OAuthError>
}

/** @internal */
export interface Config {
  readonly serverUrl?: string | URL | undefined
  readonly policy: UrlPolicy.UrlPolicy
  readonly authorizationServer?: string | undefined
  readonly client: Identity.ClientOptions
  readonly scopes: ReadonlyArray<string>
  readonly refreshSkewMillis: number
  /** A refresh request gives up after this long (and within half the lease of a shared store's lock). */
  readonly tokenRequestTimeoutMillis: number
  readonly maxStepUps: number
  readonly grant: Grant
}

/** @internal */
export interface Engine {
  readonly auth: HttpAuth.Service
  /** Discovers (through the well-known locations when no challenge came yet) and yields the flow. */
  readonly flow: Effect.Effect<Flow, OAuthError>
  /** A usable access token, refreshed when due; obtains one (the grant) when there is none. */
  readonly authorize: Effect.Effect<Redacted.Redacted<string>, OAuthError>
  readonly signOut: Effect.Effect<void, OAuthError>
}

const sameTokens = (a: TokenStore.Tokens, b: TokenStore.Tokens): boolean =>
  Redacted.value(a.accessToken) === Redacted.value(b.accessToken) &&
  (a.refreshToken === undefined ? undefined : Redacted.value(a.refreshToken)) ===
    (b.refreshToken === undefined ? undefined : Redacted.value(b.refreshToken))

const storeError = (operation: string) => (error: TokenStore.TokenStoreError) =>
  new OAuthError({ reason: "Store", message: `token store ${operation} failed: ${error.message}` })

interface Known {
  readonly discovered: Discovery.Discovered
  readonly resourceMetadataUrl: string | undefined
}

/** @internal */
export const make = (
  config: Config,
  http: Http.Http,
  store: TokenStore.Service,
  scope: Scope.Scope
): Engine => {
  const singleFlight = SingleFlight.make(scope)
  let serverUrl: string | undefined = config.serverUrl === undefined ? undefined : new URL(config.serverUrl).href
  let known: Known | undefined
  let challengeScope: string | undefined
  const stepUps = new Map<string, number>()
  /** The access token `headers` handed to the current fiber, to tell a stale token from a rejected one. */
  const sent = FiberRef.unsafeMake<string | undefined>(undefined)

  const flowOf = (discovered: Discovery.Discovered): Flow => ({
    http,
    store,
    discovered,
    // a configured client id is part of the key: another client id never reuses these tokens
    key: config.client.clientId === undefined
      ? { resource: discovered.resource, issuer: discovered.issuer }
      : { resource: discovered.resource, issuer: discovered.issuer, clientId: config.client.clientId },
    client: config.client
  })

  /**
   * SEP-2352: client credentials belong to the authorization server that issued them. A registration is looked up
   * by issuer, so a new issuer means a new registration (or the portable metadata document). Configured (pre-
   * registered) credentials are bound to the configured `authorizationServer`, else to the first issuer found: a
   * resource that moves elsewhere is refused rather than sent someone else's client id.
   */
  const adopt = (discovered: Discovery.Discovered, resourceMetadataUrl: string | undefined) =>
    Effect.suspend(() => {
      const previous = known?.discovered.issuer
      if (
        previous !== undefined && previous !== discovered.issuer && config.client.clientId !== undefined &&
        config.authorizationServer === undefined
      ) {
        return Effect.fail(
          new OAuthError({
            reason: "AuthorizationServerChanged",
            message: `the resource moved from authorization server ${previous} to ${discovered.issuer}; ` +
              `the configured client id is registered at ${previous} only`
          })
        )
      }
      known = { discovered, resourceMetadataUrl }
      return Effect.succeed(flowOf(discovered))
    })

  /**
   * The flow for the resource: what was discovered before, unless the challenge names other metadata or `fresh`
   * asks to read it again (a token was rejected: the resource may have moved to another authorization server).
   */
  const discover = (resourceMetadataUrl: string | undefined, fresh = false): Effect.Effect<Flow, OAuthError> =>
    Effect.suspend(() => {
      if (
        !fresh && known !== undefined &&
        (resourceMetadataUrl === undefined || resourceMetadataUrl === known.resourceMetadataUrl)
      ) {
        return Effect.succeed(flowOf(known.discovered))
      }
      if (serverUrl === undefined) {
        return Effect.fail(new OAuthError({ reason: "Configuration", message: "the MCP server URL is not known yet" }))
      }
      const url = serverUrl
      return singleFlight(
        `discover ${resourceMetadataUrl ?? ""}`,
        Effect.flatMap(
          Discovery.discoverWith(http, {
            serverUrl: url,
            resourceMetadataUrl,
            authorizationServer: config.authorizationServer,
            policy: config.policy
          }),
          (discovered) => adopt(discovered, resourceMetadataUrl)
        )
      )
    })

  const stored = (flow: Flow) => flow.store.getTokens(flow.key).pipe(Effect.mapError(storeError("read")))
  const save = (flow: Flow, tokens: TokenStore.Tokens) =>
    flow.store.setTokens(flow.key, tokens).pipe(Effect.mapError(storeError("write")))
  const forget = (flow: Flow) => flow.store.deleteTokens(flow.key).pipe(Effect.mapError(storeError("delete")))
  const flightKey = (flow: Flow) => `${flow.key.resource} ${flow.key.issuer}`

  const exclusively = <A>(flow: Flow, body: Effect.Effect<A, OAuthError>): Effect.Effect<A, OAuthError> =>
    flow.store.exclusive === undefined
      ? body
      : Effect.scoped(Effect.zipRight(Effect.mapError(flow.store.exclusive(flow.key), storeError("lock")), body))

  /** Under the store's lock (a lease): never longer than half of it, so it ends while the lock is still ours. */
  const refreshTimeout = (flow: Flow) =>
    Duration.millis(
      flow.store.lease === undefined
        ? config.tokenRequestTimeoutMillis
        : Math.min(config.tokenRequestTimeoutMillis, Duration.toMillis(flow.store.lease) / 2)
    )

  /**
   * Compare before delete: removes the stored tokens only while they are still `failed`. Tokens another process
   * (or request) stored meanwhile are kept, and returned. Runs under the store's lock.
   */
  const forgetIf = (
    flow: Flow,
    failed: TokenStore.Tokens
  ): Effect.Effect<Option.Option<TokenStore.Tokens>, OAuthError> =>
    Effect.flatMap(stored(flow), (now) => {
      if (Option.isNone(now)) return Effect.succeedNone
      return sameTokens(now.value, failed) ? Effect.as(forget(flow), Option.none()) : Effect.succeed(now)
    })

  /** Spends the refresh token of `seen` once; callers holding an older one get what is stored now. */
  const refresh = (flow: Flow, seen: TokenStore.Tokens): Effect.Effect<TokenStore.Tokens, OAuthError> =>
    singleFlight(
      `refresh ${flightKey(flow)}`,
      // across processes sharing the store too: the body reads what another process may have refreshed
      exclusively(
        flow,
        Effect.gen(function*() {
          const latest = yield* stored(flow)
          if (Option.isNone(latest)) {
            return yield* new OAuthError({ reason: "InvalidGrant", message: "the tokens were removed" })
          }
          const token = latest.value.refreshToken
          if (token === undefined || seen.refreshToken === undefined) {
            return yield* new OAuthError({ reason: "InvalidGrant", message: "no refresh token" })
          }
          if (Redacted.value(token) !== Redacted.value(seen.refreshToken)) return latest.value
          const identity = yield* config.grant.identity(flow)
          const timeout = refreshTimeout(flow)
          const response = yield* Effect.either(
            Grants.refresh(http, flow.discovered.authorizationServer, identity, token, flow.key.resource).pipe(
              Effect.timeoutFail({
                duration: timeout,
                onTimeout: () =>
                  new OAuthError({
                    reason: "Http",
                    message: `the token endpoint did not answer the refresh within ${Duration.format(timeout)}`
                  })
              })
            )
          )
          if (Either.isLeft(response)) {
            if (response.left.reason !== "InvalidGrant") return yield* response.left
            // the refused tokens go; tokens written meanwhile (a sign-in elsewhere) stay and are used
            const replaced = yield* forgetIf(flow, latest.value)
            if (Option.isSome(replaced)) return replaced.value
            return yield* response.left
          }
          const tokens = yield* Grants.toTokens(response.right, undefined, latest.value)
          yield* save(flow, tokens)
          return tokens
        })
      )
    )

  /** Runs the grant once for all callers waiting on this server. */
  const obtain = (flow: Flow, scopes: ReadonlyArray<string>): Effect.Effect<TokenStore.Tokens, OAuthError> =>
    singleFlight(
      `obtain ${flightKey(flow)}`,
      Effect.gen(function*() {
        const requested = config.grant.offlineAccess
          ? Scopes.withOfflineAccess(scopes, flow.discovered.authorizationServer.scopes_supported)
          : scopes
        const tokens = yield* config.grant.obtain(flow, requested)
        // under the lock, so that no refresh elsewhere overwrites them with what it read before
        yield* exclusively(flow, save(flow, tokens))
        return tokens
      })
    )

  const firstScopes = (flow: Flow) =>
    Scopes.select({
      challenge: challengeScope,
      scopesSupported: Option.getOrUndefined(flow.discovered.resourceMetadata)?.scopes_supported,
      configured: config.scopes
    })

  /** The tokens to send now: refreshed when due, none when expired without a way to refresh. */
  const current = (flow: Flow): Effect.Effect<Option.Option<TokenStore.Tokens>, OAuthError> =>
    Effect.gen(function*() {
      const tokens = yield* stored(flow)
      if (Option.isNone(tokens) || tokens.value.expiresAt === undefined) return tokens
      const now = yield* Clock.currentTimeMillis
      const expiresAt = tokens.value.expiresAt
      if (now + config.refreshSkewMillis < expiresAt) return tokens
      if (tokens.value.refreshToken === undefined) return now < expiresAt ? tokens : Option.none()
      return yield* refresh(flow, tokens.value).pipe(
        Effect.map(Option.some<TokenStore.Tokens>),
        Effect.catchAll((error): Effect.Effect<Option.Option<TokenStore.Tokens>, OAuthError> => {
          if (error.reason === "InvalidGrant") {
            return config.grant.interactive ? Effect.fail(error) : Effect.succeed(Option.none())
          }
          return now < expiresAt ? Effect.succeed(tokens) : Effect.fail(error)
        })
      )
    })

  /**
   * Before the first request of the process: discovery through the well-known locations, so tokens stored by an
   * earlier run go out with it (no `401` round trip). Tried once; a failure leaves discovery to the first challenge.
   */
  let prefetched = false
  const prefetch: Effect.Effect<Option.Option<Flow>> = Effect.suspend(() => {
    if (known !== undefined) return Effect.succeed(Option.some(flowOf(known.discovered)))
    if (prefetched) return Effect.succeed(Option.none())
    prefetched = true
    return Effect.option(discover(undefined))
  })

  const headers = (request: HttpAuth.RequestInfo) =>
    Effect.gen(function*() {
      if (serverUrl === undefined) serverUrl = request.url
      const flow = yield* prefetch
      if (Option.isNone(flow)) {
        yield* FiberRef.set(sent, undefined)
        return {}
      }
      const tokens = yield* current(flow.value)
      const token = Option.getOrUndefined(tokens)
      yield* FiberRef.set(sent, token === undefined ? undefined : Redacted.value(token.accessToken))
      return token === undefined ? {} : yield* Dpop.present(http.dpop, token, request)
    }).pipe(Effect.mapError(toMcpError))

  const onUnauthorized = (flow: Flow): Effect.Effect<HttpAuth.Decision, OAuthError> =>
    Effect.gen(function*() {
      const sentToken = yield* FiberRef.get(sent)
      const tokens = yield* current(flow)
      if (Option.isSome(tokens)) {
        // another request already replaced the token this one was sent with
        if (Redacted.value(tokens.value.accessToken) !== sentToken) return "retry" as const
        if (tokens.value.refreshToken !== undefined) {
          const refreshed = yield* refresh(flow, tokens.value).pipe(
            Effect.map(Option.some<TokenStore.Tokens>),
            Effect.catchAll((error): Effect.Effect<Option.Option<TokenStore.Tokens>, OAuthError> =>
              error.reason === "InvalidGrant" && !config.grant.interactive
                ? Effect.succeed(Option.none())
                : Effect.fail(error)
            )
          )
          if (Option.isSome(refreshed)) return "retry" as const
        }
        // the rejected tokens go, unless another process replaced them meanwhile: then those are sent
        const replaced = yield* exclusively(flow, forgetIf(flow, tokens.value))
        if (Option.isSome(replaced)) return "retry" as const
      }
      yield* obtain(flow, firstScopes(flow))
      return "retry" as const
    })

  const onInsufficientScope = (
    flow: Flow,
    challenge: HttpAuth.Challenge | undefined
  ): Effect.Effect<HttpAuth.Decision, OAuthError | McpError.InsufficientScope> =>
    Effect.gen(function*() {
      const required = Scopes.parse(challenge?.params.scope)
      const tokens = yield* stored(flow)
      const granted = Scopes.parse(Option.getOrUndefined(tokens)?.scope)
      const refuse = (why: string) =>
        new McpError.InsufficientScope({
          message: `the server needs more scopes; ${why}`,
          ...(challenge?.params.scope === undefined ? {} : { scope: challenge.params.scope })
        })
      if (Option.isSome(tokens) && required.length > 0 && Scopes.covers(granted, required)) {
        return yield* refuse("the token already has every scope asked for, a new authorization would not help")
      }
      const scopes = Scopes.union(granted.filter((s) => s !== "offline_access"), required, config.scopes)
      const attemptKey = [...scopes].sort().join(" ")
      const attempts = stepUps.get(attemptKey) ?? 0
      if (attempts >= config.maxStepUps) {
        return yield* refuse(`gave up after ${attempts} authorization attempts for these scopes`)
      }
      stepUps.set(attemptKey, attempts + 1)
      yield* obtain(flow, scopes)
      return "retry" as const
    })

  const onChallenge = (info: HttpAuth.ChallengeInfo) =>
    Effect.gen(function*() {
      if (serverUrl === undefined) serverUrl = info.url
      const nonce = yield* Dpop.onNonceChallenge(http.dpop, info)
      if (nonce !== undefined) return nonce
      const params = info.wwwAuthenticate?.params ?? {}
      if (info.status === 403 && params.error !== "insufficient_scope") return "fail" as const
      const rejected = info.status === 401 && (yield* FiberRef.get(sent)) !== undefined
      const flow = yield* discover(params.resource_metadata, rejected)
      if (info.status === 403) return yield* onInsufficientScope(flow, info.wwwAuthenticate)
      if (params.scope !== undefined) challengeScope = params.scope
      return yield* onUnauthorized(flow)
    }).pipe(Effect.catchTag("OAuthError", (error) => Effect.fail(toMcpError(error))))

  const flow = discover(undefined)

  const authorize = Effect.gen(function*() {
    const f = yield* flow
    const tokens = yield* current(f)
    if (Option.isSome(tokens)) return tokens.value.accessToken
    return (yield* obtain(f, firstScopes(f))).accessToken
  })

  const signOut = Effect.gen(function*() {
    if (known === undefined) return
    yield* forget(flowOf(known.discovered))
  })

  const dpop = http.dpop
  const auth: HttpAuth.Service = dpop === undefined
    ? { headers, onChallenge }
    : { headers, onChallenge, onResponse: (response) => Dpop.onResponse(dpop, response) }
  return { auth, flow, authorize, signOut }
}
