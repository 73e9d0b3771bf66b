/**
 * A `KeyValueStore` on Redis: every key under a prefix (default
 * `mcp-effect:`), strings and bytes stored as they are. `clear` and `size`
 * only see keys under the prefix (found with `SCAN`), so one Redis can serve
 * several apps. Processes sharing the Redis and the prefix share the store.
 *
 * The Layer is a `SharedStore` too (the call history and the hub's stored
 * servers use it): a record is the key `<prefix>@records:<collection>:r:<id>`,
 * its id is in the set `<prefix>@records:<collection>:ids`, and each write is
 * one `MULTI` with a `PUBLISH` on `<prefix>@records:<collection>:changes`.
 * Processes writing at once lose nothing, and see each other's changes live
 * (pub/sub: milliseconds). Each subscription (one per history or registry)
 * holds a Redis connection of its own while it runs. `clear` removes the
 * records too (they are under the prefix).
 *
 * @since 0.1.0
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/keyValueStore.js"
import * as internalShared from "./internal/sharedStore.js"
import type * as RedisClient from "./RedisClient.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Prepended to every key. Default `"mcp-effect:"`. */
  readonly prefix?: string | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options?: Options
) => Effect.Effect<KeyValueStore.KeyValueStore, never, RedisClient.RedisClient> = internal.make

/**
 * The records of the store, per record, with live changes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeShared: (
  options?: Options
) => Effect.Effect<SharedStore.Service, never, RedisClient.RedisClient> = internalShared.make

/**
 * The `KeyValueStore` and the `SharedStore`, with one prefix.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<KeyValueStore.KeyValueStore | SharedStore.SharedStore, never, RedisClient.RedisClient> =>
  Layer.effectContext(
    Effect.zipWith(
      make(options),
      makeShared(options),
      (kv, shared) => Context.make(KeyValueStore.KeyValueStore, kv).pipe(Context.add(SharedStore.SharedStore, shared))
    )
  )
