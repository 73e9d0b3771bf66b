/**
 * OAuth 2.1 for one MCP server, as Layers providing the HTTP transport's
 * auth hook (`HttpAuth`) and an `OAuthClient` service.
 *
 * - `layerAuthorizationCode`: a person authorizes (PKCE S256, `state`,
 *   `resource`, `iss` check) through the app's `Authorizer`; the client is
 *   pre-registered, a Client ID Metadata Document, or registered
 *   dynamically.
 * - `layerClientCredentials`: a machine with a client secret
 *   (`client_secret_basic` / `client_secret_post`) or a private key
 *   (`private_key_jwt`, RFC 7523).
 * - `layerJwtBearer`: a workload with its own JWT (workload identity
 *   federation, RFC 7523 JWT-bearer grant).
 * - `layerCrossAppAccess`: enterprise-managed authorization — an ID token
 *   from the enterprise identity provider, exchanged for an ID-JAG and
 *   redeemed at the MCP server's authorization server.
 *
 * Before the first request the hook discovers the authorization server
 * through the well-known locations, so a token stored by an earlier run
 * (keyed by server and issuer in the `TokenStore`) goes out with it and the
 * server sees no `401`. On a `401` it discovers from the challenge, obtains
 * tokens and asks the transport to retry; when the `401` rejects a token it
 * reads the protected-resource metadata again first, so a resource that
 * moved to another authorization server gets a registration there and never
 * the old server's client id (SEP-2352). An authorization server that is
 * down (unreachable, DNS, `5xx`, `429`) is a retryable
 * `McpError.TransportError` with the `OAuthError` as `cause`. Tokens are refreshed before they expire and
 * silently after a `401`; a refused refresh token ends in
 * `McpError.Unauthorized` with `reauthorize: true`. A `403
 * insufficient_scope` triggers a step-up with the union of the scopes, at
 * most `maxStepUps` times per scope set.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { HttpAuth } from "@mcp-effect/transport-http"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import { Authorizer } from "./Authorizer.js"
import * as AuthorizerModule from "./Authorizer.js"
import type * as DpopOptions from "./Dpop.js"
import * as AddressBar from "./internal/addressBar.js"
import * as AuthorizationCode from "./internal/authorizationCode.js"
import * as Dpop from "./internal/dpop.js"
import * as Engine from "./internal/engine.js"
import * as Http from "./internal/http.js"
import * as Machine from "./internal/machine.js"
import type { OAuthError } from "./OAuthError.js"
import { TokenStore } from "./TokenStore.js"
import * as UrlPolicy from "./UrlPolicy.js"

/**
 * The client's identity at the authorization server.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions {
  /** A pre-registered client id. Without one, the authorization-code flow uses CIMD or dynamic registration. */
  readonly clientId?: string | undefined
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  /** A private key for `private_key_jwt`: PKCS#8 PEM or a JWK (JSON). */
  readonly privateKey?: Redacted.Redacted<string> | undefined
  /** The JWS algorithm of `privateKey` (`ES256`, `RS256`, ...). Default: the key's `alg`, else the server's first. */
  readonly algorithm?: string | undefined
  /** The `kid` header of client assertions. */
  readonly keyId?: string | undefined
  /** Overrides the token-endpoint authentication chosen from the credentials and the server's metadata. */
  readonly tokenEndpointAuthMethod?:
    | "none"
    | "client_secret_basic"
    | "client_secret_post"
    | "private_key_jwt"
    | undefined
  /** The HTTPS URL of this app's Client ID Metadata Document, used as `client_id` where supported. */
  readonly metadataDocumentUrl?: string | undefined
  /** Extra client metadata for dynamic registration (`client_name`, `logo_uri`, ...). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The MCP server URL. Default: the URL of the transport's first request. */
  readonly serverUrl?: string | URL | undefined
  readonly client?: ClientOptions | undefined
  /** Scopes always asked for, next to the challenge's. */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** The SSRF guard for every server-supplied URL. Default `UrlPolicy.strict`. */
  readonly urlPolicy?: UrlPolicy.UrlPolicy | undefined
  /** Which of the resource's authorization servers to use. Default: the first listed. */
  readonly authorizationServer?: string | undefined
  /** Refresh this long before the access token expires. Default 60 seconds. */
  readonly refreshSkew?: Duration.DurationInput | undefined
  /**
   * How long a refresh request may take. Default 30 seconds; with a store
   * shared by processes, at most half the lease of its refresh lock (the
   * lock is never held past its lease by a slow token endpoint).
   *
   * @since 0.3.0
   */
  readonly tokenRequestTimeout?: Duration.DurationInput | undefined
  /** Step-up authorizations per scope set before giving up. Default 3. */
  readonly maxStepUps?: number | undefined
  /**
   * Send `traceparent` / `b3` headers on OAuth requests (metadata, registration,
   * token). Default `false`: in a browser each extra header must be allowed by
   * the server's CORS.
   *
   * @since 0.2.0
   */
  readonly tracePropagation?: boolean | undefined
  /**
   * DPoP (RFC 9449) sender-constrained tokens: `true` or the proof key's
   * options. Default: off (`Bearer`). See `Dpop`.
   *
   * @since 0.2.0
   */
  readonly dpop?: boolean | DpopOptions.Options | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AuthorizationCodeOptions extends Options {
  /** Ask for `offline_access` (a refresh token) when the server lists it. Default `true`. */
  readonly offlineAccess?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClientCredentialsOptions extends Options {
  readonly client: ClientOptions & { readonly clientId: string }
}

/**
 * @since 0.2.0
 * @category models
 */
export interface JwtBearerOptions extends Options {
  readonly client: ClientOptions & { readonly clientId: string }
  /**
   * The workload's JWT (its audience: the authorization server), asked for
   * each time a new token is needed, so a short-lived token from the
   * platform (a projected service-account token, a CI job's OIDC token) is
   * read fresh.
   */
  readonly assertion: Effect.Effect<Redacted.Redacted<string>, OAuthError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CrossAppAccessOptions extends Options {
  /** The client at the MCP server's authorization server (it redeems the ID-JAG). */
  readonly client: ClientOptions & { readonly clientId: string }
  /** The enterprise identity provider that exchanges the ID token. */
  readonly identityProvider: {
    readonly issuer?: string | undefined
    /** The token endpoint; discovered from `issuer` when absent. */
    readonly tokenEndpoint?: string | undefined
    readonly clientId: string
    readonly clientSecret?: Redacted.Redacted<string> | undefined
  }
  /** The user's ID token from single sign-on, asked for each time a new token is needed. */
  readonly idToken: Effect.Effect<Redacted.Redacted<string>, OAuthError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * A usable access token for the server: the stored one (refreshed when
   * due), else a new one from the flow. Discovers through the well-known
   * locations when no challenge came yet. Useful for a "sign in" command.
   */
  readonly authorize: Effect.Effect<Redacted.Redacted<string>, OAuthError>
  /**
   * Finishes an authorization-code flow whose callback arrived in a new page
   * load (full-page redirect): give it the callback URL or its parameters.
   * In a browser whose address bar shows this callback, `code`, `state`,
   * `iss` (and `error*`) are then removed from it with
   * `history.replaceState`, whether the exchange succeeded or not.
   */
  readonly completeAuthorization: (callback: string | URL | URLSearchParams) => Effect.Effect<void, OAuthError>
  /** Forgets this server's tokens. */
  readonly signOut: Effect.Effect<void, OAuthError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class OAuthClient extends Context.Tag("@mcp-effect/oauth/OAuthClient")<OAuthClient, Service>() {}

const build = (options: Options, grant: Engine.Grant) =>
  Effect.gen(function*() {
    const policy = options.urlPolicy ?? UrlPolicy.strict
    const dpop = yield* Dpop.make(options.dpop)
    const http = yield* Http.make(policy, { tracePropagation: options.tracePropagation, dpop })
    const store = dpop === undefined ? yield* TokenStore : Dpop.bindStore(yield* TokenStore, dpop)
    const engine = Engine.make(
      {
        serverUrl: options.serverUrl,
        policy,
        authorizationServer: options.authorizationServer,
        client: options.client ?? {},
        scopes: options.scopes ?? [],
        refreshSkewMillis: Duration.toMillis(options.refreshSkew ?? "60 seconds"),
        tokenRequestTimeoutMillis: Duration.toMillis(options.tokenRequestTimeout ?? "30 seconds"),
        maxStepUps: options.maxStepUps ?? 3,
        grant
      },
      http,
      store,
      yield* Effect.scope
    )
    const service: Service = {
      authorize: engine.authorize,
      completeAuthorization: (callback) => {
        const params = AuthorizerModule.callbackParameters(callback)
        return Effect.flatMap(engine.flow, (flow) => AuthorizationCode.complete(flow, params)).pipe(
          // the code is single-use either way: it does not stay in the address bar or history
          Effect.ensuring(AddressBar.clearCallback(params))
        )
      },
      signOut: engine.signOut
    }
    return Context.make(HttpAuth.HttpAuth, engine.auth).pipe(Context.add(OAuthClient, service))
  })

/**
 * The authorization-code flow, with the app's `Authorizer` for the
 * interactive step.
 *
 * @example
 * ```ts
 * import { NodeContext, NodeHttpClient } from "@effect/platform-node"
 * import { McpClient } from "@mcp-effect/core"
 * import { NodeTokenStore, OAuthClient } from "@mcp-effect/oauth"
 * import * as NodeAuthorizer from "@mcp-effect/oauth/NodeAuthorizer"
 * import { HttpTransport } from "@mcp-effect/transport-http"
 * import { Layer } from "effect"
 *
 * // on a 401 the hook discovers the authorization server, runs the flow and the request is retried
 * const Transport = HttpTransport.layer({ url: "https://mcp.example.com/mcp" }).pipe(
 *   Layer.provide(OAuthClient.layerAuthorizationCode({ scopes: ["files:read"] })),
 *   Layer.provide(NodeAuthorizer.layer()), // loopback callback on 127.0.0.1, opens the browser
 *   Layer.provide(NodeTokenStore.layer({ directory: ".tokens" })), // tokens encrypted at rest
 *   Layer.provide(Layer.merge(NodeHttpClient.layerUndici, NodeContext.layer))
 * )
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(Transport)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAuthorizationCode = (
  options: AuthorizationCodeOptions = {}
): Layer.Layer<HttpAuth.HttpAuth | OAuthClient, never, TokenStore | Authorizer | HttpClient.HttpClient> =>
  Layer.scopedContext(
    Effect.flatMap(
      Authorizer,
      (authorizer) => build(options, AuthorizationCode.grant(authorizer, options.offlineAccess ?? true))
    )
  )

/**
 * The client-credentials flow.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerClientCredentials = (
  options: ClientCredentialsOptions
): Layer.Layer<HttpAuth.HttpAuth | OAuthClient, never, TokenStore | HttpClient.HttpClient> =>
  Layer.scopedContext(build(options, Machine.clientCredentials))

/**
 * Workload identity federation: the JWT-bearer grant (RFC 7523,
 * `urn:ietf:params:oauth:grant-type:jwt-bearer`) with a JWT the workload
 * already holds, instead of a client secret. A refused assertion
 * (`invalid_grant`, `invalid_scope`, `unauthorized_client`) is an
 * `McpError.Unauthorized` at once: no retry, no other grant.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerJwtBearer = (
  options: JwtBearerOptions
): Layer.Layer<HttpAuth.HttpAuth | OAuthClient, never, TokenStore | HttpClient.HttpClient> =>
  Layer.scopedContext(build(options, Machine.jwtBearer(options.assertion)))

/**
 * Cross-app access (enterprise-managed authorization).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCrossAppAccess = (
  options: CrossAppAccessOptions
): Layer.Layer<HttpAuth.HttpAuth | OAuthClient, never, TokenStore | HttpClient.HttpClient> =>
  Layer.scopedContext(build(options, Machine.crossAppAccess(options.identityProvider, options.idToken)))
