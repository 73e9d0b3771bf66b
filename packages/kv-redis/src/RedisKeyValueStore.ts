/**
 * A `KeyValueStore` on Redis: every key under a prefix (default
 * `mcp-effect:`), strings and bytes stored as they are. `clear` and `size`
 * only see keys under the prefix (found with `SCAN`), so one Redis can serve
 * several apps. Processes sharing the Redis and the prefix share the store.
 *
 * @since 0.1.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/keyValueStore.js"
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
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<KeyValueStore.KeyValueStore, never, RedisClient.RedisClient> =>
  Layer.effect(internal.tag, make(options))
