/**
 * At most one run per key at a time: callers that arrive while a run is in
 * flight wait for its result instead of starting their own (a list fetched
 * once for two callers, a rotating refresh token spent once for many). A run
 * belongs to the given scope, not to its first caller, so one caller giving
 * up does not cancel it for the others.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as Scope from "effect/Scope"

/**
 * @since 0.1.0
 * @category models
 */
export type SingleFlight = <A, E>(key: string, run: Effect.Effect<A, E>) => Effect.Effect<A, E>

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (scope: Scope.Scope): SingleFlight => {
  const inFlight = new Map<string, Deferred.Deferred<any, any>>()
  return <A, E>(key: string, run: Effect.Effect<A, E>) =>
    Effect.flatMap(
      Effect.suspend(() => {
        const existing = inFlight.get(key) as Deferred.Deferred<A, E> | undefined
        if (existing !== undefined) return Effect.succeed(existing)
        const deferred = Deferred.unsafeMake<A, E>(FiberId.none)
        inFlight.set(key, deferred)
        return run.pipe(
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(deferred, exit)),
          Effect.ensuring(Effect.sync(() => inFlight.delete(key))),
          Effect.forkIn(scope),
          Effect.as(deferred)
        )
      }),
      Deferred.await
    )
}
