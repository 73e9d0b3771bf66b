/**
 * Finding the authorization server of an MCP server (MCP 2025-11-25):
 *
 * 1. Protected-resource metadata (RFC 9728): the `resource_metadata` URL of
 *    the `WWW-Authenticate` challenge, else
 *    `/.well-known/oauth-protected-resource/<path>`, else
 *    `/.well-known/oauth-protected-resource` at the root. Its `resource`
 *    must be the MCP server (same origin, a path prefix).
 * 2. Authorization-server metadata: for an issuer with a path
 *    `/.well-known/oauth-authorization-server/<path>`, then
 *    `/.well-known/openid-configuration/<path>`, then
 *    `<path>/.well-known/openid-configuration`; without a path the first two
 *    at the root. The document's `issuer` must be identical to the issuer
 *    the URL was built from (RFC 8414 §3.3): compared as plain strings, a
 *    trailing slash is a different issuer. Metadata that fails this is not
 *    used.
 *
 * A server without protected-resource metadata is treated as a 2025-03-26
 * server: its origin is the authorization server, and without metadata the
 * endpoints default to `/authorize`, `/token` and `/register`.
 *
 * Every URL passes the `UrlPolicy`.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as oauth from "oauth4webapi"
import * as Http from "./internal/http.js"
import * as Wire from "./internal/wire.js"
import { OAuthError } from "./OAuthError.js"
import type * as UrlPolicy from "./UrlPolicy.js"

/**
 * RFC 9728 protected-resource metadata (the fields used here; the rest is kept).
 *
 * @since 0.1.0
 * @category models
 */
export interface ProtectedResourceMetadata {
  readonly resource: string
  readonly authorization_servers?: ReadonlyArray<string> | undefined
  readonly scopes_supported?: ReadonlyArray<string> | undefined
  readonly [field: string]: unknown
}

/**
 * RFC 8414 / OpenID provider metadata, as `oauth4webapi` reads it.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthorizationServerMetadata = oauth.AuthorizationServer

/**
 * What discovery found for one MCP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Discovered {
  /** The `resource` sent on authorization and token requests: verbatim from the metadata, else the server URL. */
  readonly resource: string
  readonly resourceMetadata: Option.Option<ProtectedResourceMetadata>
  readonly authorizationServer: AuthorizationServerMetadata
  /** The issuer tokens are keyed by. */
  readonly issuer: string
  /** `true` for a 2025-03-26 server (no protected-resource metadata). */
  readonly legacy: boolean
}

/**
 * The MCP server URL as a resource identifier (RFC 8707): no fragment, no
 * trailing slash on an empty path, and neither the query nor user
 * credentials: a server URL's query often carries an API key
 * (`?api_key=…`), which is the MCP server's secret and never goes to an
 * authorization server.
 *
 * @since 0.1.0
 * @category resources
 */
export const canonicalResource = (serverUrl: string | URL): string => {
  const url = new URL(serverUrl)
  url.hash = ""
  url.search = ""
  url.username = ""
  url.password = ""
  const href = url.href
  return url.pathname === "/" ? href.slice(0, -1) : href
}

const trimSlash = (path: string): string => path.replace(/\/+$/, "")

/**
 * Whether protected-resource metadata naming `resource` may be used for the
 * MCP server at `serverUrl`: same origin, and the resource's path is the
 * server's path or one of its parent paths.
 *
 * @since 0.1.0
 * @category resources
 */
export const resourceMatches = (serverUrl: string | URL, resource: string): boolean => {
  let server: URL
  let named: URL
  try {
    server = new URL(serverUrl)
    named = new URL(resource)
  } catch {
    return false
  }
  if (server.origin !== named.origin) return false
  const prefix = trimSlash(named.pathname)
  const path = trimSlash(server.pathname)
  return path === prefix || path.startsWith(`${prefix}/`)
}

/**
 * The protected-resource metadata URLs to try, in order.
 *
 * @since 0.1.0
 * @category urls
 */
export const protectedResourceMetadataUrls = (
  serverUrl: string | URL,
  fromChallenge?: string | undefined
): ReadonlyArray<URL> => {
  const server = new URL(serverUrl)
  const urls: Array<URL> = []
  if (fromChallenge !== undefined) {
    try {
      urls.push(new URL(fromChallenge, server))
    } catch {
      // an unreadable header value: fall back to the well-known locations
    }
  }
  const path = trimSlash(server.pathname)
  if (path !== "") urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, server.origin))
  urls.push(new URL("/.well-known/oauth-protected-resource", server.origin))
  return urls.filter((url, i) => urls.findIndex((u) => u.href === url.href) === i)
}

/**
 * The authorization-server metadata URLs to try for an issuer, in the
 * order of MCP 2025-11-25.
 *
 * @since 0.1.0
 * @category urls
 */
export const authorizationServerMetadataUrls = (issuer: string | URL): ReadonlyArray<URL> => {
  const url = new URL(issuer)
  const path = trimSlash(url.pathname)
  if (path === "") {
    return [
      new URL("/.well-known/oauth-authorization-server", url.origin),
      new URL("/.well-known/openid-configuration", url.origin)
    ]
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`/.well-known/openid-configuration${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin)
  ]
}

/**
 * A server-supplied name or URL as an error message shows it: query values
 * redacted, no line break, control or bidi character, at most 200 characters.
 */
const shown = (input: string): string => {
  const line = Redaction.neutralize(Redaction.url(input), "line")
  return line.length > 200 ? `${line.slice(0, 197)}...` : line
}

/** The app naming one of the listed authorization servers: a trailing slash aside. */
const sameIssuer = (a: string, b: string): boolean => trimSlash(a) === trimSlash(b)

const readResourceMetadata = (json: unknown, url: URL): Effect.Effect<ProtectedResourceMetadata, OAuthError> =>
  Wire.decode(Wire.ProtectedResourceMetadata, "Discovery", `protected-resource metadata at ${Redaction.url(url)}`)(json)

const readServerMetadata = (json: unknown, url: URL): Effect.Effect<AuthorizationServerMetadata, OAuthError> =>
  Wire.decode(Wire.AuthorizationServerMetadata, "Discovery", `authorization-server metadata at ${Redaction.url(url)}`)(
    json
  )

/** Fetches protected-resource metadata from the first URL that serves it. */
const fetchResourceMetadata = (
  http: Http.Http,
  serverUrl: string | URL,
  fromChallenge?: string | undefined
): Effect.Effect<Option.Option<ProtectedResourceMetadata>, OAuthError> =>
  Effect.gen(function*() {
    for (const url of protectedResourceMetadataUrls(serverUrl, fromChallenge)) {
      const json = yield* http.getJson(url, "protected-resource metadata")
      if (Option.isSome(json)) return Option.some(yield* readResourceMetadata(json.value, url))
    }
    return Option.none()
  })

/**
 * Fetches authorization-server metadata for `issuer`. With `checkIssuer`
 * the document's `issuer` must be `issuer`, character for character.
 */
const fetchAuthorizationServerMetadata = (
  http: Http.Http,
  issuer: string,
  options: { readonly checkIssuer: boolean }
): Effect.Effect<Option.Option<AuthorizationServerMetadata>, OAuthError> =>
  Effect.gen(function*() {
    const urls = yield* Effect.try({
      try: () => authorizationServerMetadataUrls(issuer),
      catch: () =>
        new OAuthError({ reason: "Discovery", message: `the authorization server ${shown(issuer)} is not a URL` })
    })
    for (const url of urls) {
      const json = yield* http.getJson(url, "authorization-server metadata")
      if (Option.isNone(json)) continue
      const doc = yield* readServerMetadata(json.value, url)
      if (options.checkIssuer && doc.issuer !== issuer) {
        return yield* new OAuthError({
          reason: "Discovery",
          message: `${Redaction.url(url)} names issuer ${shown(doc.issuer)}, expected ${shown(issuer)}`
        })
      }
      return Option.some(doc)
    }
    return Option.none()
  })

/**
 * @since 0.1.0
 * @category models
 */
export interface DiscoverOptions {
  readonly serverUrl: string | URL
  /** The `resource_metadata` parameter of the challenge, if any. */
  readonly resourceMetadataUrl?: string | undefined
  /** Which of the listed authorization servers to use; the first one by default. */
  readonly authorizationServer?: string | undefined
  readonly policy: UrlPolicy.UrlPolicy
}

const legacyDefaults = (origin: string): AuthorizationServerMetadata => ({
  issuer: origin,
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`,
  code_challenge_methods_supported: ["S256"]
})

/** @internal */
export const discoverWith = (http: Http.Http, options: DiscoverOptions): Effect.Effect<Discovered, OAuthError> =>
  Effect.gen(function*() {
    const prm = yield* fetchResourceMetadata(http, options.serverUrl, options.resourceMetadataUrl)
    if (Option.isNone(prm)) {
      const origin = new URL(options.serverUrl).origin
      const metadata = yield* fetchAuthorizationServerMetadata(http, origin, { checkIssuer: false })
      const authorizationServer = Option.getOrElse(metadata, () => legacyDefaults(origin))
      return {
        resource: canonicalResource(options.serverUrl),
        resourceMetadata: prm,
        authorizationServer,
        issuer: authorizationServer.issuer,
        legacy: true
      }
    }
    const resourceMetadata = prm.value
    if (!resourceMatches(options.serverUrl, resourceMetadata.resource)) {
      return yield* new OAuthError({
        reason: "ResourceMismatch",
        message: `protected-resource metadata is for ${shown(resourceMetadata.resource)}, not for ${
          Redaction.url(canonicalResource(options.serverUrl))
        }`
      })
    }
    const servers = resourceMetadata.authorization_servers ?? []
    const chosen = options.authorizationServer === undefined
      ? servers[0]
      : servers.find((s) => sameIssuer(s, options.authorizationServer!))
    if (chosen === undefined) {
      return yield* new OAuthError({
        reason: "Discovery",
        message: options.authorizationServer === undefined
          ? "protected-resource metadata lists no authorization server"
          : `protected-resource metadata does not list ${shown(options.authorizationServer)}`
      })
    }
    const metadata = yield* fetchAuthorizationServerMetadata(http, chosen, { checkIssuer: true })
    if (Option.isNone(metadata)) {
      return yield* new OAuthError({
        reason: "Discovery",
        message: `no authorization-server metadata for ${shown(chosen)}`
      })
    }
    return {
      resource: resourceMetadata.resource,
      resourceMetadata: prm,
      authorizationServer: metadata.value,
      issuer: metadata.value.issuer,
      legacy: false
    }
  })

/**
 * Runs discovery for one MCP server.
 *
 * @since 0.1.0
 * @category discovery
 */
export const discover = (options: DiscoverOptions): Effect.Effect<Discovered, OAuthError, HttpClient.HttpClient> =>
  Effect.flatMap(Http.make(options.policy), (http) => discoverWith(http, options))

/** @internal authorization-server (or OpenID provider) metadata of a known issuer */
export const metadataFor = (http: Http.Http, issuer: string): Effect.Effect<AuthorizationServerMetadata, OAuthError> =>
  Effect.flatMap(
    fetchAuthorizationServerMetadata(http, issuer, { checkIssuer: true }),
    Option.match({
      onNone: () =>
        Effect.fail(new OAuthError({ reason: "Discovery", message: `no metadata for issuer ${shown(issuer)}` })),
      onSome: Effect.succeed
    })
  )
