/**
 * Where OAuth state lives: tokens, client registrations, and the PKCE
 * verifier and state of a flow in progress. Swapping Node for the browser is
 * swapping the Layer that provides this service.
 *
 * Tokens are keyed by the MCP server (its resource URL), the
 * authorization server's issuer and the configured client id, so one server
 * moving to another issuer, or configured with another client, never reuses
 * a token minted for someone else.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { TokenStoreError } from "./internal/store/failure.js"
import * as RecordStore from "./internal/store/recordStore.js"
import * as Sealer from "./internal/store/sealer.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface TokenKey {
  /** The protected resource (the MCP server URL, as in its metadata's `resource`). */
  readonly resource: string
  /** The authorization server's issuer identifier. */
  readonly issuer: string
  /**
   * The client id the app configured for the server, when it configured one:
   * a server entry with another client id never reuses these tokens.
   * Absent for clients registered on the fly (their registration is per issuer).
   *
   * @since 0.3.0
   */
  readonly clientId?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Tokens {
  readonly accessToken: Redacted.Redacted<string>
  readonly tokenType: string
  readonly refreshToken?: Redacted.Redacted<string> | undefined
  /** Epoch milliseconds at which the access token expires, from `expires_in`. */
  readonly expiresAt?: number | undefined
  /** The scopes granted (space separated). */
  readonly scope?: string | undefined
  /**
   * The key pair a DPoP-bound token (`tokenType` `DPoP`) is bound to; a
   * DPoP-bound token without it is never used (see `Dpop`).
   *
   * @since 0.2.0
   */
  readonly dpopKey?: DpopKey | undefined
}

/**
 * The key of DPoP-bound tokens (RFC 9449), kept with them.
 *
 * @since 0.2.0
 * @category models
 */
export interface DpopKey {
  /** The private key as a JWK (JSON, with its `alg`); the public key is read from it. */
  readonly privateJwk: Redacted.Redacted<string>
  /** The RFC 7638 SHA-256 thumbprint of the public key: the tokens' `cnf.jkt`. */
  readonly thumbprint: string
}

/**
 * A client identity at one authorization server.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientRegistration {
  readonly clientId: string
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  /** Epoch milliseconds; absent when it never expires. */
  readonly clientSecretExpiresAt?: number | undefined
  readonly registrationAccessToken?: Redacted.Redacted<string> | undefined
  readonly registrationClientUri?: string | undefined
  /** How the identity was obtained. */
  readonly source: "preregistered" | "metadata-document" | "dynamic"
  readonly redirectUris: ReadonlyArray<string>
  readonly tokenEndpointAuthMethod?: string | undefined
}

/**
 * An authorization-code flow waiting for its callback, found again by `state`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PendingAuthorization {
  readonly state: string
  readonly codeVerifier: Redacted.Redacted<string>
  readonly redirectUri: string
  readonly key: TokenKey
  readonly clientId: string
  readonly scope?: string | undefined
  /** Epoch milliseconds. */
  readonly createdAt: number
  /**
   * With DPoP on: the key the authorization code is bound to (`dpop_jkt`,
   * RFC 9449 §10), sealed with the rest, so the code exchange after a
   * full-page redirect proves possession of the same key.
   *
   * @since 0.2.0
   */
  readonly dpopKey?: DpopKey | undefined
}

export {
  /**
   * A storage layer failed (I/O, a corrupt file, a key that cannot decrypt).
   * Never contains a secret.
   *
   * @since 0.1.0
   * @category errors
   */
  TokenStoreError
} from "./internal/store/failure.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly getTokens: (key: TokenKey) => Effect.Effect<Option.Option<Tokens>, TokenStoreError>
  readonly setTokens: (key: TokenKey, tokens: Tokens) => Effect.Effect<void, TokenStoreError>
  readonly deleteTokens: (key: TokenKey) => Effect.Effect<void, TokenStoreError>

  /** Registrations are per issuer (and per redirect setup of the app). */
  readonly getClient: (issuer: string) => Effect.Effect<Option.Option<ClientRegistration>, TokenStoreError>
  readonly setClient: (issuer: string, client: ClientRegistration) => Effect.Effect<void, TokenStoreError>
  readonly deleteClient: (issuer: string) => Effect.Effect<void, TokenStoreError>

  readonly getPending: (state: string) => Effect.Effect<Option.Option<PendingAuthorization>, TokenStoreError>
  readonly setPending: (pending: PendingAuthorization) => Effect.Effect<void, TokenStoreError>
  readonly deletePending: (state: string) => Effect.Effect<void, TokenStoreError>

  /**
   * Held (for the scope) while the tokens of `key` are refreshed, for stores
   * shared by several processes: a rotating refresh token is then spent by
   * one process, and the others read its result. Absent for stores of one
   * process (refreshes there are already single-flight).
   */
  readonly exclusive?: ((key: TokenKey) => Effect.Effect<void, TokenStoreError, Scope.Scope>) | undefined
  /**
   * How long `exclusive` outlives a holder that stops renewing it (a killed
   * process): the others wait at most this long. A refresh under the lock
   * times out well within it (at most half of it).
   *
   * @since 0.3.0
   */
  readonly lease?: Duration.Duration | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class TokenStore extends Context.Tag("@mcp-effect/oauth/TokenStore")<TokenStore, Service>() {}

/**
 * Options every store Layer accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreOptions {
  /**
   * How long a pending authorization (PKCE verifier and state) stays usable,
   * measured with `Clock` from its `createdAt`. Older entries read as absent
   * and are deleted. Default: 10 minutes.
   */
  readonly pendingTtl?: Duration.DurationInput | undefined
}

/**
 * A store that lives in this process only: nothing is written anywhere,
 * nothing survives a restart. Records are still copied through their JSON
 * form, so callers never share mutable state with the store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options?: StoreOptions): Effect.Effect<Service> =>
  Effect.sync(() => RecordStore.make(RecordStore.memoryBackend(), Sealer.plain, options))

/**
 * The memory store, for tests and short-lived processes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory())
