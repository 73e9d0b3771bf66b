/**
 * The token store on any `@effect/platform` `KeyValueStore` (Redis, files,
 * IndexedDB, memory), each record sealed with AES-256-GCM as in the other
 * stores. Processes that share the key-value store and the key share their
 * tokens; give a `lock` shared by them too (a Redis lock, for example) and a
 * rotating refresh token is spent by one process at a time. Keys (and lock
 * names) are SHA-256 hashes of the server and issuer URLs, never the URLs.
 *
 * @since 0.2.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/store/keyValueStore.js"
import * as TokenStore from "./TokenStore.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options extends TokenStore.StoreOptions {
  /**
   * The AES-256 key every process sharing the store uses: 32 bytes, or their
   * base64 / base64url encoding (e.g. `openssl rand -base64 32`, kept in a
   * secret manager).
   */
  readonly key: Redacted.Redacted<Uint8Array | string>
  /** Prepended to the store's keys. Default `"oauth:"`. */
  readonly prefix?: string | undefined
  /**
   * Taken (for the scope) around each refresh; its name is a hash per server,
   * issuer and client id. It should be renewed while held and expire (after
   * `lease`) when its holder dies.
   */
  readonly lock?: ((name: string) => Effect.Effect<void, { readonly message: string }, Scope.Scope>) | undefined
  /**
   * How long `lock` outlives a holder that stops renewing it; a refresh under
   * the lock times out within half of it.
   *
   * @since 0.3.0
   */
  readonly lease?: Duration.DurationInput | undefined
}

/**
 * @since 0.2.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<TokenStore.Service, TokenStore.TokenStoreError, KeyValueStore.KeyValueStore> = internal.make

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<TokenStore.TokenStore, TokenStore.TokenStoreError, KeyValueStore.KeyValueStore> =>
  Layer.effect(TokenStore.TokenStore, make(options))
