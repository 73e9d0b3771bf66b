/**
 * Who the client is at the authorization server, and how it authenticates
 * at the token endpoint.
 *
 * Priority for the authorization-code flow: a pre-registered client id from
 * the options, a registration stored earlier for this issuer (and redirect
 * URI), a Client ID Metadata Document URL (when the server says
 * `client_id_metadata_document_supported`), dynamic registration (RFC 7591).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import * as oauth from "oauth4webapi"
import { OAuthError } from "../OAuthError.js"
import type * as TokenStore from "../TokenStore.js"
import * as UrlPolicy from "../UrlPolicy.js"
import * as Address from "./address.js"
import * as Calls from "./calls.js"
import type * as Http from "./http.js"
import * as Wire from "./wire.js"

/** @internal */
export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt"

/** @internal the client part of the options */
export interface ClientOptions {
  readonly clientId?: string | undefined
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  readonly privateKey?: Redacted.Redacted<string> | undefined
  readonly algorithm?: string | undefined
  readonly keyId?: string | undefined
  readonly tokenEndpointAuthMethod?: AuthMethod | undefined
  readonly metadataDocumentUrl?: string | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/** @internal */
export interface Identity {
  readonly client: oauth.Client
  readonly auth: oauth.ClientAuth
  readonly source: TokenStore.ClientRegistration["source"]
}

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks for Basic credentials. */
const formEncode = (value: string): string =>
  encodeURIComponent(value)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+")

const clientSecretBasic = (secret: Redacted.Redacted<string>): oauth.ClientAuth => (_as, client, _body, headers) => {
  headers.set(
    "authorization",
    `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(Redacted.value(secret))}`)}`
  )
}

/** The method a client with these credentials uses at this server. */
const chooseMethod = (
  as: oauth.AuthorizationServer,
  credentials: {
    readonly secret?: Redacted.Redacted<string> | undefined
    readonly privateKey?: Redacted.Redacted<string> | undefined
    readonly method?: string | undefined
  }
): string => {
  if (credentials.method !== undefined) return credentials.method
  if (credentials.privateKey !== undefined) return "private_key_jwt"
  if (credentials.secret === undefined) return "none"
  const supported = as.token_endpoint_auth_methods_supported
  if (supported === undefined || supported.includes("client_secret_basic")) return "client_secret_basic"
  return supported.includes("client_secret_post") ? "client_secret_post" : "client_secret_basic"
}

const importKey = (
  as: oauth.AuthorizationServer,
  key: Redacted.Redacted<string>,
  algorithm: string | undefined
): Effect.Effect<{ readonly key: CryptoKey; readonly alg: string }, OAuthError> =>
  Effect.tryPromise({
    try: async () => {
      const text = Redacted.value(key).trim()
      if (text.startsWith("{")) {
        const jwk = JSON.parse(text) as jose.JWK
        const alg = algorithm ?? jwk.alg ?? as.token_endpoint_auth_signing_alg_values_supported?.[0] ?? "RS256"
        return { key: (await jose.importJWK(jwk, alg)) as CryptoKey, alg }
      }
      const alg = algorithm ?? as.token_endpoint_auth_signing_alg_values_supported?.[0] ?? "RS256"
      return { key: await jose.importPKCS8(text, alg), alg }
    },
    catch: () =>
      new OAuthError({
        reason: "Configuration",
        message: `the private key cannot be used${algorithm === undefined ? "" : ` with ${algorithm}`}`
      })
  })

/** @internal builds the token-endpoint authentication for a client */
export const clientAuth = (
  as: oauth.AuthorizationServer,
  method: string,
  credentials: {
    readonly secret?: Redacted.Redacted<string> | undefined
    readonly privateKey?: Redacted.Redacted<string> | undefined
    readonly algorithm?: string | undefined
    readonly keyId?: string | undefined
  }
): Effect.Effect<oauth.ClientAuth, OAuthError> => {
  const needSecret = (make: (secret: Redacted.Redacted<string>) => oauth.ClientAuth) =>
    credentials.secret === undefined
      ? Effect.fail(new OAuthError({ reason: "Configuration", message: `${method} needs a client secret` }))
      : Effect.succeed(make(credentials.secret))
  switch (method) {
    case "none":
      return Effect.succeed(oauth.None())
    case "client_secret_basic":
      return needSecret(clientSecretBasic)
    case "client_secret_post":
      return needSecret((secret) => oauth.ClientSecretPost(Redacted.value(secret)))
    case "private_key_jwt":
      return credentials.privateKey === undefined
        ? Effect.fail(new OAuthError({ reason: "Configuration", message: "private_key_jwt needs a private key" }))
        : Effect.map(
          importKey(as, credentials.privateKey, credentials.algorithm),
          ({ key }) => oauth.PrivateKeyJwt(credentials.keyId === undefined ? key : { key, kid: credentials.keyId })
        )
    default:
      return Effect.fail(
        new OAuthError({ reason: "Configuration", message: `unsupported token endpoint auth method ${method}` })
      )
  }
}

/** @internal the identity configured in the options (machine flows, pre-registration) */
export const configured = (
  as: oauth.AuthorizationServer,
  options: ClientOptions
): Effect.Effect<Option.Option<Identity>, OAuthError> => {
  if (options.clientId === undefined) return Effect.succeed(Option.none())
  const method = chooseMethod(as, {
    secret: options.clientSecret,
    privateKey: options.privateKey,
    method: options.tokenEndpointAuthMethod
  })
  return Effect.map(
    clientAuth(as, method, {
      secret: options.clientSecret,
      privateKey: options.privateKey,
      algorithm: options.algorithm,
      keyId: options.keyId
    }),
    (auth) =>
      Option.some({
        client: { client_id: options.clientId!, token_endpoint_auth_method: method },
        auth,
        source: "preregistered" as const
      })
  )
}

/** @internal a machine flow needs a configured client */
export const requireConfigured = (
  as: oauth.AuthorizationServer,
  options: ClientOptions
): Effect.Effect<Identity, OAuthError> =>
  Effect.flatMap(configured(as, options), (identity) =>
    Option.match(identity, {
      onNone: () => Effect.fail(new OAuthError({ reason: "Configuration", message: "this flow needs a client id" })),
      onSome: Effect.succeed
    }))

const withoutLoopbackPort = (uri: string): string | undefined => {
  try {
    const url = new URL(uri)
    if (url.protocol !== "http:" || Address.classifyHost(url.hostname) !== "loopback") return undefined
    url.port = ""
    return url.href
  } catch {
    return undefined
  }
}

/** Whether a registration can be used with this redirect URI (RFC 8252: any port on loopback). */
const redirectAllowed = (registration: TokenStore.ClientRegistration, redirectUri: string): boolean => {
  if (registration.redirectUris.includes(redirectUri)) return true
  const bare = withoutLoopbackPort(redirectUri)
  return bare !== undefined && registration.redirectUris.some((uri) => withoutLoopbackPort(uri) === bare)
}

const fromRegistration = (
  as: oauth.AuthorizationServer,
  registration: TokenStore.ClientRegistration
): Effect.Effect<Identity, OAuthError> => {
  const method = registration.tokenEndpointAuthMethod ??
    (registration.clientSecret === undefined ? "none" : "client_secret_basic")
  return Effect.map(clientAuth(as, method, { secret: registration.clientSecret }), (auth) => ({
    client: { client_id: registration.clientId, token_endpoint_auth_method: method },
    auth,
    source: registration.source
  }))
}

const usable = (registration: TokenStore.ClientRegistration, now: number): boolean =>
  registration.clientSecretExpiresAt === undefined || registration.clientSecretExpiresAt > now

const storeError = (operation: string) => (error: TokenStore.TokenStoreError) =>
  new OAuthError({ reason: "Store", message: `token store ${operation} failed: ${error.message}` })

/** @internal */
export interface ResolveInput {
  readonly http: Http.Http
  readonly as: oauth.AuthorizationServer
  readonly issuer: string
  readonly store: TokenStore.Service
  readonly options: ClientOptions
}

/**
 * @internal the identity for the authorization-code flow; `redirectUri`
 * undefined means "do not register" (refreshing, completing a redirect)
 */
export const resolve = (input: ResolveInput, redirectUri: string | undefined): Effect.Effect<Identity, OAuthError> =>
  Effect.gen(function*() {
    const { as, options } = input
    const preregistered = yield* configured(as, options)
    if (Option.isSome(preregistered)) return preregistered.value
    const now = yield* Clock.currentTimeMillis
    const stored = yield* input.store.getClient(input.issuer).pipe(Effect.mapError(storeError("read")))
    if (
      Option.isSome(stored) && usable(stored.value, now) &&
      (redirectUri === undefined || redirectAllowed(stored.value, redirectUri))
    ) {
      return yield* fromRegistration(as, stored.value)
    }
    if (as.client_id_metadata_document_supported === true && options.metadataDocumentUrl !== undefined) {
      return { client: { client_id: options.metadataDocumentUrl }, auth: oauth.None(), source: "metadata-document" }
    }
    if (redirectUri === undefined) {
      return yield* new OAuthError({ reason: "Registration", message: "no client registration for this issuer" })
    }
    if (as.registration_endpoint === undefined) {
      return yield* new OAuthError({
        reason: "Registration",
        message: "no client id configured, no Client ID Metadata Document usable and no registration endpoint"
      })
    }
    const registration = yield* register(input, redirectUri)
    yield* input.store.setClient(input.issuer, registration).pipe(Effect.mapError(storeError("write")))
    return yield* fromRegistration(as, registration)
  })

/** The body of a registration response, or the refusal a non-2xx status carries. */
const readRegistration = async (response: Response): Promise<unknown> => {
  const body: unknown = await response.json().catch(() => undefined)
  if (response.status !== 200 && response.status !== 201) {
    const refusal = Option.getOrElse(
      Wire.decodeErrorBody(body),
      () => ({ error: undefined, error_description: undefined })
    )
    const error = refusal.error ?? `HTTP ${response.status}`
    throw new OAuthError({
      reason: "Registration",
      message: `registration refused: ${Wire.describeRefusal(error, refusal.error_description)}`,
      error,
      status: response.status
    })
  }
  return body
}

const requestedMethod = (as: oauth.AuthorizationServer): AuthMethod | undefined => {
  const supported = as.token_endpoint_auth_methods_supported
  if (supported === undefined) return undefined
  if (supported.includes("none")) return "none"
  if (supported.includes("client_secret_basic")) return "client_secret_basic"
  if (supported.includes("client_secret_post")) return "client_secret_post"
  return undefined
}

/**
 * The grants this client registers for: `refresh_token` too (SEP-2207), unless the server lists its
 * `grant_types_supported` without it (a server without refresh tokens refuses a registration asking for them).
 */
const registeredGrants = (as: oauth.AuthorizationServer): Array<string> =>
  as.grant_types_supported === undefined || as.grant_types_supported.includes("refresh_token")
    ? ["authorization_code", "refresh_token"]
    : ["authorization_code"]

const register = (
  input: ResolveInput,
  redirectUri: string
): Effect.Effect<TokenStore.ClientRegistration, OAuthError> =>
  Effect.gen(function*() {
    yield* UrlPolicy.check(input.as.registration_endpoint!, input.http.policy, "registration endpoint")
    const loopback = withoutLoopbackPort(redirectUri) !== undefined
    const method = requestedMethod(input.as)
    const metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>> = {
      client_name: "mcp-effect",
      redirect_uris: [redirectUri],
      grant_types: registeredGrants(input.as),
      response_types: ["code"],
      application_type: loopback ? "native" : "web",
      ...(method === undefined ? {} : { token_endpoint_auth_method: method }),
      // RFC 9449 §5.2: this client always asks for DPoP-bound tokens
      ...(input.http.dpop === undefined ? {} : { dpop_bound_access_tokens: true }),
      ...input.options.metadata
    }
    const response = yield* Calls.call(
      input.http,
      "Registration",
      (options) => oauth.dynamicClientRegistrationRequest(input.as, metadata, options),
      readRegistration
    ).pipe(Effect.flatMap(Wire.decode(Wire.RegistrationResponse, "Registration", "the registration response")))
    const secret = response.client_secret === undefined ? undefined : Redacted.make(response.client_secret)
    const expiresAt = response.client_secret_expires_at !== undefined && response.client_secret_expires_at > 0
      ? response.client_secret_expires_at * 1000
      : undefined
    const registered: TokenStore.ClientRegistration = {
      clientId: response.client_id,
      clientSecret: secret,
      clientSecretExpiresAt: expiresAt,
      registrationAccessToken: response.registration_access_token === undefined
        ? undefined
        : Redacted.make(response.registration_access_token),
      registrationClientUri: response.registration_client_uri,
      source: "dynamic",
      redirectUris: response.redirect_uris ?? [redirectUri],
      tokenEndpointAuthMethod: response.token_endpoint_auth_method !== undefined
        ? response.token_endpoint_auth_method
        : secret === undefined
        ? "none"
        : "client_secret_basic"
    }
    return registered
  })
