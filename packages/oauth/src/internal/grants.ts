/**
 * The token-endpoint requests of every flow, through `oauth4webapi`:
 * authorization code (PKCE, `resource`, `state` and RFC 9207 `iss` checks),
 * refresh, client credentials, token exchange and the JWT-bearer grant.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as oauth from "oauth4webapi"
import { OAuthError } from "../OAuthError.js"
import type * as TokenStore from "../TokenStore.js"
import * as UrlPolicy from "../UrlPolicy.js"
import * as Calls from "./calls.js"
import * as Dpop from "./dpop.js"
import type * as Http from "./http.js"
import type * as Identity from "./identity.js"
import * as Wire from "./wire.js"

/** @internal */
export const tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
/** @internal */
export const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
/** @internal */
export const idJagTokenType = "urn:ietf:params:oauth:token-type:id-jag"
/** @internal */
export const idTokenType = "urn:ietf:params:oauth:token-type:id_token"

/**
 * A grant at the token endpoint as a client span: `oauth.grant <type>`, with
 * the grant type and the authorization server's host; a failure adds
 * `error.type` (the server's OAuth error code, else the `OAuthError` reason)
 * and the HTTP status. Never a token, a code, a verifier or a secret.
 */
const traced = (grantType: string) => <A, R>(grant: Effect.Effect<A, OAuthError, R>, issuer: string) =>
  grant.pipe(
    Effect.tapError((error) =>
      Effect.annotateCurrentSpan({
        "error.type": error.error ?? error.reason,
        ...(error.status !== undefined ? { "http.response.status_code": error.status } : {})
      })
    ),
    Effect.withSpan(`oauth.grant ${shortGrantType(grantType)}`, {
      kind: "client",
      attributes: { "oauth.grant_type": grantType, "server.address": hostOf(issuer) },
      captureStackTrace: false
    })
  )

/** `urn:ietf:params:oauth:grant-type:token-exchange` → `token-exchange` */
const shortGrantType = (grantType: string) => grantType.slice(grantType.lastIndexOf(":") + 1)

const hostOf = (issuer: string) => {
  try {
    return new URL(issuer).host
  } catch {
    return issuer
  }
}

const tracedCode = traced("authorization_code")
const tracedRefresh = traced("refresh_token")
const tracedClientCredentials = traced("client_credentials")

/** @internal turns a token response into stored tokens; what the response omits is kept from `previous` */
export const toTokens = (
  response: Wire.TokenResponse,
  requestedScope: string | undefined,
  previous?: TokenStore.Tokens | undefined
): Effect.Effect<TokenStore.Tokens> =>
  Effect.map(Clock.currentTimeMillis, (now) => ({
    accessToken: Redacted.make(response.access_token),
    tokenType: response.token_type,
    refreshToken: response.refresh_token === undefined
      ? previous?.refreshToken
      : Redacted.make(response.refresh_token),
    expiresAt: response.expires_in === undefined ? undefined : now + response.expires_in * 1000,
    scope: response.scope ?? requestedScope ?? previous?.scope
  }))

/** Token responses pass `oauth4webapi`'s checks, then this schema (the fields read here, with their types). */
const decodeTokens = Wire.decode(Wire.TokenResponse, "Token", "the token response")

const endpoint = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  name: "token_endpoint" | "authorization_endpoint",
  what: string
): Effect.Effect<URL, OAuthError> =>
  as[name] === undefined
    ? Effect.fail(new OAuthError({ reason: "Discovery", message: `the authorization server has no ${what}` }))
    : UrlPolicy.check(as[name], http.policy, what)

/** @internal PKCE is mandatory: refuse servers that do not advertise S256 */
export const requireS256 = (as: oauth.AuthorizationServer): Effect.Effect<void, OAuthError> =>
  as.code_challenge_methods_supported?.includes("S256") === true
    ? Effect.void
    : Effect.fail(
      new OAuthError({
        reason: "PkceUnsupported",
        message: as.code_challenge_methods_supported === undefined
          ? "the authorization server does not advertise PKCE (code_challenge_methods_supported is absent)"
          : "the authorization server does not support the S256 code challenge method"
      })
    )

/** @internal */
export interface AuthorizationUrlInput {
  readonly clientId: string
  readonly redirectUri: string
  readonly codeVerifier: string
  readonly state: string
  readonly resource: string
  readonly scope: string | undefined
  /** The thumbprint of the DPoP key the code is to be bound to (RFC 9449 §10). */
  readonly dpopJkt?: string | undefined
}

/** @internal the authorization URL, checked by the `UrlPolicy` */
export const authorizationUrl = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  input: AuthorizationUrlInput
): Effect.Effect<URL, OAuthError> =>
  Effect.gen(function*() {
    yield* requireS256(as)
    const url = new URL(yield* endpoint(http, as, "authorization_endpoint", "authorization endpoint"))
    const challenge = yield* Effect.promise(() => oauth.calculatePKCECodeChallenge(input.codeVerifier))
    url.searchParams.set("response_type", "code")
    url.searchParams.set("client_id", input.clientId)
    url.searchParams.set("redirect_uri", input.redirectUri)
    url.searchParams.set("code_challenge", challenge)
    url.searchParams.set("code_challenge_method", "S256")
    url.searchParams.set("state", input.state)
    url.searchParams.set("resource", input.resource)
    if (input.scope !== undefined) url.searchParams.set("scope", input.scope)
    if (input.dpopJkt !== undefined) url.searchParams.set("dpop_jkt", input.dpopJkt)
    // OpenID Connect only issues a refresh token for offline_access with an explicit consent prompt
    if (input.scope?.split(" ").includes("offline_access") === true) url.searchParams.set("prompt", "consent")
    return url
  })

/** @internal */
export interface CodeExchangeInput {
  readonly identity: Identity.Identity
  readonly callback: URLSearchParams
  readonly state: string
  readonly redirectUri: string
  readonly codeVerifier: Redacted.Redacted<string>
  readonly resource: string
}

/** @internal checks the callback (`state`, RFC 9207 `iss`, `error`) and redeems the code */
export const exchangeCode = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  input: CodeExchangeInput
): Effect.Effect<Wire.TokenResponse, OAuthError> =>
  tracedCode(
    Effect.gen(function*() {
      const tokenEndpoint = yield* endpoint(http, as, "token_endpoint", "token endpoint")
      const validated = yield* Effect.try({
        try: () => oauth.validateAuthResponse(as, input.identity.client, input.callback, input.state),
        catch: Calls.toOAuthError("Authorization")
      })
      return yield* send(
        http,
        as,
        tokenEndpoint,
        (options) =>
          oauth.authorizationCodeGrantRequest(
            as,
            input.identity.client,
            input.identity.auth,
            validated,
            input.redirectUri,
            Redacted.value(input.codeVerifier),
            { ...options, additionalParameters: { resource: input.resource } }
          ),
        (response) => oauth.processAuthorizationCodeResponse(as, input.identity.client, response)
      )
    }),
    as.issuer
  )

/** Options of a token request: a DPoP proof goes in `headers` when DPoP is on. */
type TokenRequestOptions = Calls.RequestOptions & { readonly headers: Record<string, string> }

/** Sends a token request (with a DPoP proof when DPoP is on) and decodes the tokens. */
const send = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  tokenEndpoint: URL,
  request: (options: TokenRequestOptions) => Promise<Response>,
  process: (response: Response) => Promise<unknown>
): Effect.Effect<Wire.TokenResponse, OAuthError> =>
  Dpop.proven(
    http.dpop,
    as,
    tokenEndpoint,
    (headers) =>
      Effect.flatMap(Calls.call(http, "Token", (options) => request({ ...options, headers }), process), decodeTokens)
  )

/** A request to the token endpoint, after checking that the server has one. */
const tokenCall = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  request: (options: TokenRequestOptions) => Promise<Response>,
  process: (response: Response) => Promise<unknown>
): Effect.Effect<Wire.TokenResponse, OAuthError> =>
  Effect.flatMap(
    endpoint(http, as, "token_endpoint", "token endpoint"),
    (tokenEndpoint) => send(http, as, tokenEndpoint, request, process)
  )

/** @internal */
export const refresh = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  identity: Identity.Identity,
  refreshToken: Redacted.Redacted<string>,
  resource: string
): Effect.Effect<Wire.TokenResponse, OAuthError> =>
  tracedRefresh(
    tokenCall(
      http,
      as,
      (options) =>
        oauth.refreshTokenGrantRequest(as, identity.client, identity.auth, Redacted.value(refreshToken), {
          ...options,
          additionalParameters: { resource }
        }),
      (response) => oauth.processRefreshTokenResponse(as, identity.client, response)
    ),
    as.issuer
  )

const scoped = (scope: string | undefined): Record<string, string> => scope === undefined ? {} : { scope }

/** @internal */
export const clientCredentials = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  identity: Identity.Identity,
  resource: string,
  scope: string | undefined
): Effect.Effect<Wire.TokenResponse, OAuthError> =>
  tracedClientCredentials(
    tokenCall(
      http,
      as,
      (options) =>
        oauth.clientCredentialsGrantRequest(
          as,
          identity.client,
          identity.auth,
          { resource, ...scoped(scope) },
          options
        ),
      (response) => oauth.processClientCredentialsResponse(as, identity.client, response)
    ),
    as.issuer
  )

/** @internal any grant at a token endpoint (token exchange, JWT bearer) */
export const generic = (
  http: Http.Http,
  as: oauth.AuthorizationServer,
  identity: Identity.Identity,
  grantType: string,
  parameters: Record<string, string>
): Effect.Effect<Wire.TokenResponse, OAuthError> =>
  traced(grantType)(
    tokenCall(
      http,
      as,
      (options) =>
        oauth.genericTokenEndpointRequest(as, identity.client, identity.auth, grantType, parameters, options),
      (response) =>
        oauth.processGenericTokenEndpointResponse(as, identity.client, response, {
          // a token exchange answers with token_type "N_A": the issued token is not an access token
          recognizedTokenTypes: { n_a: () => undefined }
        })
    ),
    as.issuer
  )
