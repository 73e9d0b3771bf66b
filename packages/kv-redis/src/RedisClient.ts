/**
 * One ioredis connection as a service, opened when the Layer is built
 * (a server that cannot be reached fails the build) and closed with `QUIT`
 * when its scope closes. The store, the lock and the token store of this
 * package share it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { Redis } from "ioredis"
import type { RedisError } from "./internal/client.js"
import * as internal from "./internal/client.js"

export {
  /**
   * A Redis command or the connection failed. Never holds a stored value.
   *
   * @since 0.1.0
   * @category errors
   */
  RedisError
} from "./internal/client.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** `redis://[user:password@]host:port[/db]`; a `Redacted` URL keeps its password out of logs. */
  readonly url: string | Redacted.Redacted<string>
  /** How long one connection attempt may take. Default 10 s. */
  readonly connectTimeout?: Duration.DurationInput | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly redis: Redis
  /** Runs one command; a rejection becomes a `RedisError` naming the operation. */
  readonly use: <A>(operation: string, f: (redis: Redis) => Promise<A>) => Effect.Effect<A, RedisError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class RedisClient extends Context.Tag("@mcp-effect/kv-redis/RedisClient")<RedisClient, Service>() {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<Service, RedisError, Scope.Scope> = internal.make

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<RedisClient, RedisError> =>
  Layer.scoped(RedisClient, make(options))

/**
 * Wraps a connection the app manages itself (it is not closed by this service).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromRedis = (redis: Redis): Service => internal.fromRedis(redis)

/**
 * @since 0.1.0
 * @category layers
 */
export const layerFromRedis = (redis: Redis): Layer.Layer<RedisClient> =>
  Layer.sync(RedisClient, () => fromRedis(redis))
