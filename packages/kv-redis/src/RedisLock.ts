/**
 * A lock shared by every process on one Redis: `SET name token NX PX ttl`
 * to take it, released (only by its holder, checked atomically) when the
 * scope closes. The expiry frees a lock whose holder died; a holder that
 * runs longer than `ttl` loses it, so pick `ttl` above the longest guarded
 * work (a token refresh: a few seconds).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/lock.js"
import type * as RedisClient from "./RedisClient.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Prepended to lock names. Default `"mcp-effect:lock:"`. */
  readonly prefix?: string | undefined
  /** How long a taken lock lives at most. Default 30 s. */
  readonly ttl?: Duration.DurationInput | undefined
  /** How long to wait for a lock held by someone else before failing. Default 60 s. */
  readonly wait?: Duration.DurationInput | undefined
  /** Delay between attempts while waiting. Default 25 ms. */
  readonly retryEvery?: Duration.DurationInput | undefined
}

/**
 * Takes the named lock for the scope; waits while another holder has it.
 *
 * @since 0.1.0
 * @category models
 */
export type Lock = (name: string) => Effect.Effect<void, RedisClient.RedisError, Scope.Scope>

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<Lock, never, RedisClient.RedisClient> = internal.make
