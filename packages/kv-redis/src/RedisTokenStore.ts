/**
 * The OAuth token store on Redis: `KeyValueTokenStore` over
 * `RedisKeyValueStore`, records sealed with AES-256-GCM under a key every
 * process shares, and each refresh taken under a `RedisLock`, so app
 * processes sharing one Redis share their tokens and spend a rotating
 * refresh token once. Key names hold SHA-256 hashes of the server and
 * issuer URLs, never the URLs (a URL can carry an API key).
 *
 * @since 0.1.0
 */
import { KeyValueTokenStore, type TokenStore } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as RedisClient from "./RedisClient.js"
import * as RedisKeyValueStore from "./RedisKeyValueStore.js"
import * as RedisLock from "./RedisLock.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends TokenStore.StoreOptions {
  /** The sealing key (32 bytes or their base64 / base64url encoding), the same in every process. */
  readonly key: Redacted.Redacted<Uint8Array | string>
  /** Prepended to every Redis key. Default `"mcp-effect:"` (records then live under `mcp-effect:oauth:`). */
  readonly prefix?: string | undefined
  /**
   * The refresh lock. Default: a 10 s lease (renewed while held), 60 s wait.
   * A refresh under it times out within half the lease.
   */
  readonly lock?: RedisLock.Options | undefined
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<TokenStore.TokenStore, TokenStore.TokenStoreError, RedisClient.RedisClient> =>
  Layer.unwrapEffect(
    Effect.map(
      RedisLock.make(options.lock),
      (lock) => KeyValueTokenStore.layer({ ...options, lock, lease: options.lock?.ttl ?? RedisLock.defaultTtl })
    )
  ).pipe(Layer.provide(RedisKeyValueStore.layer({ prefix: options.prefix })))
