/**
 * A lock shared by every process on one Redis: `SET name token NX PX ttl`
 * to take it, its expiry pushed back by its holder every third of `ttl`
 * while the scope is open, released (only by its holder, checked
 * atomically) when the scope closes. The expiry frees a lock whose holder
 * died (a killed process stops renewing): the others wait at most `ttl`.
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
  /**
   * The lease: how long the lock outlives a holder that stopped renewing it
   * (renewed every third of it while held). Default 10 s.
   */
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

/**
 * The lease when `ttl` is not given.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultTtl: Duration.Duration = internal.defaultTtl
