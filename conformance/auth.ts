/**
 * The services an app supplies for an OAuth-protected server, built from the
 * conformance context: `@mcp-effect/oauth` Layers providing the transport's
 * `HttpAuth` hook, over an in-memory `TokenStore`.
 *
 * - Authorization code (people): an `oauth2` server config decoded with
 *   `ServerAuth`, as an app reads it from its config file; the interactive
 *   step is `Authorizer.layerFollowRedirect`, since the suite's mock
 *   authorization server answers `/authorize` with an immediate redirect.
 * - Client credentials (machines): the same config with the context's
 *   client id and secret or private key.
 * - Cross-app access: `OAuthClient.layerCrossAppAccess` with the context's
 *   identity provider and ID token.
 *
 * The mock servers listen on `http://localhost:<port>`, so the SSRF guard
 * allows plain http to loopback — explicitly, as a developer would.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { Authorizer, OAuthClient, ServerAuth, TokenStore, UrlPolicy } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ScenarioFailed } from "./errors.js"

/** `MCP_CONFORMANCE_CONTEXT`, parsed: credentials and settings for the auth scenarios. */
export type ConformanceContext = Readonly<Record<string, unknown>>

/** What the scenarios' services need from the app: an HTTP client (the one the transport uses). */
export type AuthServices = Layer.Layer<never, ScenarioFailed, HttpClient.HttpClient>

const urlPolicy = UrlPolicy.loopbackDevelopment

/** Where a native app's loopback callback server would listen; the mock redirects there. */
const redirectUri = "http://127.0.0.1:33418/callback"

/**
 * This app's Client ID Metadata Document, used as `client_id` where the
 * authorization server supports CIMD (the URL the suite expects).
 */
const metadataDocumentUrl = "https://conformance-test.local/client-metadata.json"

const decodeContext = <A, I>(schema: Schema.Schema<A, I>, context: ConformanceContext) =>
  Schema.decodeUnknown(schema)(context).pipe(
    Effect.mapError((error) =>
      new ScenarioFailed({
        message: `MCP_CONFORMANCE_CONTEXT does not fit this scenario: ${
          ParseResult.TreeFormatter.formatErrorSync(error)
        }`
      })
    )
  )

/** The credentials the suite hands out, in the context's spelling. */
const Credentials = Schema.Struct({
  client_id: Schema.optional(Schema.String),
  client_secret: Schema.optional(Schema.String),
  private_key_pem: Schema.optional(Schema.String),
  signing_algorithm: Schema.optional(Schema.String)
})

/** The context as the `oauth2` entry of a server config, the way an app's config file would say it. */
const serverConfig = (
  context: ConformanceContext,
  grant: "authorization_code" | "client_credentials"
): Effect.Effect<ServerAuth.ServerAuth, ScenarioFailed> =>
  Effect.flatMap(decodeContext(Credentials, context), (credentials) =>
    decodeContext(ServerAuth.ServerAuth, {
      type: "oauth2",
      grant,
      ...(credentials.client_id === undefined ? {} : { clientId: credentials.client_id }),
      ...(credentials.client_secret === undefined ? {} : { clientSecret: credentials.client_secret }),
      ...(credentials.private_key_pem === undefined ? {} : { privateKey: credentials.private_key_pem }),
      ...(credentials.signing_algorithm === undefined ? {} : { algorithm: credentials.signing_algorithm })
    }))

const fromConfig = (
  context: ConformanceContext,
  grant: "authorization_code" | "client_credentials",
  options: ServerAuth.LayerOptions
): AuthServices =>
  Layer.unwrapEffect(
    Effect.map(serverConfig(context, grant), (config) =>
      ServerAuth.layer(config, options).pipe(
        Layer.provide(TokenStore.layerMemory),
        Layer.provide(Authorizer.layerFollowRedirect({ redirectUri, policy: urlPolicy }))
      ))
  )

/**
 * A person authorizes (PKCE, `resource`, scopes, `offline_access` when
 * offered); the client is pre-registered when the context names one, else
 * this app's Client ID Metadata Document where supported, else registered
 * dynamically.
 */
export const authorizationCode = (context: ConformanceContext): AuthServices =>
  fromConfig(context, "authorization_code", { urlPolicy, metadataDocumentUrl })

/**
 * The same for an app without a Client ID Metadata Document: it always
 * registers dynamically, so the suite sees its client metadata (SEP-2207
 * checks that `grant_types` include `refresh_token`; a metadata document at
 * the suite's placeholder URL cannot be fetched, so it could not tell).
 */
export const authorizationCodeRegistered = (context: ConformanceContext): AuthServices =>
  fromConfig(context, "authorization_code", { urlPolicy })

/** A machine client: client secret (basic / post) or private-key JWT, from the context. */
export const clientCredentials = (context: ConformanceContext): AuthServices =>
  fromConfig(context, "client_credentials", { urlPolicy })

const CrossAppContext = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.String,
  idp_client_id: Schema.String,
  idp_id_token: Schema.String,
  idp_issuer: Schema.String,
  idp_token_endpoint: Schema.optional(Schema.String)
})

/**
 * Enterprise-managed authorization: the user's ID token from single sign-on
 * is exchanged at the identity provider for an ID-JAG, which the MCP
 * server's authorization server redeems for an access token.
 */
export const crossAppAccess = (context: ConformanceContext): AuthServices =>
  Layer.unwrapEffect(
    Effect.map(decodeContext(CrossAppContext, context), (settings) =>
      OAuthClient.layerCrossAppAccess({
        urlPolicy,
        client: { clientId: settings.client_id, clientSecret: Redacted.make(settings.client_secret) },
        identityProvider: {
          issuer: settings.idp_issuer,
          tokenEndpoint: settings.idp_token_endpoint,
          clientId: settings.idp_client_id
        },
        idToken: Effect.succeed(Redacted.make(settings.idp_id_token))
      }).pipe(Layer.provide(TokenStore.layerMemory)))
  )
