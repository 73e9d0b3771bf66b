/**
 * How a configured server authenticates, as it appears in a server config
 * file, and the pieces that implement it:
 *
 * ```json
 * { "type": "none" }
 * { "type": "bearer", "token": "${API_TOKEN}" }
 * { "type": "api-key", "header": "X-API-Key", "key": "${API_KEY}" }
 * { "type": "basic", "username": "ada", "password": "${PASSWORD}" }
 * { "type": "oauth2", "clientId": "my-app", "scopes": ["mcp:read"] }
 * { "type": "oauth2", "clientId": "bot", "privateKey": "${PEM}", "algorithm": "ES256" }
 * { "type": "oauth2", "scopes": ["mcp:read"], "dpop": true }
 * ```
 *
 * Static credentials go to the transport (`transportAuth` → the `auth`
 * option of `HttpTransport`); `oauth2` becomes an OAuth Layer (`layer`):
 * client credentials when a secret or a private key is configured, the
 * authorization-code flow otherwise; `grant` overrides the choice. Secrets
 * decode to `Redacted`.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { HttpTransport } from "@mcp-effect/transport-http"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Authorizer } from "./Authorizer.js"
import * as OAuthClient from "./OAuthClient.js"
import type { TokenStore } from "./TokenStore.js"
import type * as UrlPolicy from "./UrlPolicy.js"

const Secret = Schema.Redacted(Schema.String)

/**
 * @since 0.1.0
 * @category schemas
 */
export const None = Schema.Struct({ type: Schema.Literal("none") })

/**
 * @since 0.1.0
 * @category schemas
 */
export const Bearer = Schema.Struct({ type: Schema.Literal("bearer"), token: Secret })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ApiKey = Schema.Struct({
  type: Schema.Literal("api-key"),
  /** The header carrying the key. Default `X-API-Key`. */
  header: Schema.optionalWith(Schema.String, { default: () => "X-API-Key" }),
  key: Secret
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const Basic = Schema.Struct({ type: Schema.Literal("basic"), username: Schema.String, password: Secret })

/**
 * @since 0.1.0
 * @category schemas
 */
export const OAuth2 = Schema.Struct({
  type: Schema.Literal("oauth2"),
  clientId: Schema.optional(Schema.String),
  clientSecret: Schema.optional(Secret),
  /** PKCS#8 PEM or JWK (JSON) for `private_key_jwt`. */
  privateKey: Schema.optional(Secret),
  algorithm: Schema.optional(Schema.String),
  scopes: Schema.optional(Schema.Array(Schema.String)),
  grant: Schema.optional(Schema.Literal("authorization_code", "client_credentials")),
  /** DPoP-bound tokens (RFC 9449) with an `ES256` key; see `Dpop`. Default `false`. */
  dpop: Schema.optional(Schema.Boolean)
}).pipe(
  Schema.filter((config) =>
    config.grant === "client_credentials" && config.clientId === undefined
      ? "the client_credentials grant needs a clientId"
      : undefined
  )
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const ServerAuth = Schema.Union(None, Bearer, ApiKey, Basic, OAuth2)

/**
 * @since 0.1.0
 * @category models
 */
export type ServerAuth = typeof ServerAuth.Type

/**
 * The static credentials of a config, for `HttpTransport`'s `auth` option;
 * `undefined` for `none` and `oauth2`.
 *
 * @since 0.1.0
 * @category transport
 */
export const transportAuth = (config: ServerAuth): HttpTransport.Auth | undefined => {
  switch (config.type) {
    case "bearer":
      return { _tag: "Bearer", token: config.token }
    case "api-key":
      return { _tag: "ApiKey", header: config.header, key: config.key }
    case "basic":
      return { _tag: "Basic", username: config.username, password: config.password }
    case "none":
    case "oauth2":
      return undefined
  }
}

/**
 * What the app adds to an `oauth2` config.
 *
 * @since 0.1.0
 * @category models
 */
export interface LayerOptions {
  readonly serverUrl?: string | URL | undefined
  readonly urlPolicy?: UrlPolicy.UrlPolicy | undefined
  /** The app's Client ID Metadata Document URL, for the authorization-code flow. */
  readonly metadataDocumentUrl?: string | undefined
}

/**
 * Which grant an `oauth2` config uses: its `grant` when set; otherwise a
 * config with a client id and a secret or private key is a machine client
 * (client credentials), anything else a person's (authorization code). A
 * pre-registered confidential client that signs people in must therefore
 * say `grant: "authorization_code"`.
 *
 * @since 0.1.0
 * @category transport
 */
export const grantOf = (config: typeof OAuth2.Type): "authorization_code" | "client_credentials" =>
  config.grant ??
    (config.clientId !== undefined && (config.clientSecret !== undefined || config.privateKey !== undefined)
      ? "client_credentials"
      : "authorization_code")

/**
 * The auth Layer of a config: for `oauth2` the OAuth client (providing the
 * transport's `HttpAuth` hook and `OAuthClient`), nothing for the others
 * (their credentials go through `transportAuth`). The authorization-code
 * flow needs an `Authorizer`; every flow needs a `TokenStore`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: ServerAuth,
  options: LayerOptions = {}
): Layer.Layer<never, never, TokenStore | Authorizer | HttpClient.HttpClient> => {
  if (config.type !== "oauth2") return Layer.empty
  const common = {
    serverUrl: options.serverUrl,
    urlPolicy: options.urlPolicy,
    scopes: config.scopes,
    dpop: config.dpop
  }
  const client = {
    clientSecret: config.clientSecret,
    privateKey: config.privateKey,
    algorithm: config.algorithm,
    metadataDocumentUrl: options.metadataDocumentUrl
  }
  // a client_credentials config without clientId does not decode (see `OAuth2`)
  if (grantOf(config) === "client_credentials" && config.clientId !== undefined) {
    return OAuthClient.layerClientCredentials({ ...common, client: { ...client, clientId: config.clientId } })
  }
  return OAuthClient.layerAuthorizationCode({ ...common, client: { ...client, clientId: config.clientId } })
}
