/**
 * At most one run per key at a time: callers that arrive while a run is in
 * flight wait for its result instead of starting their own (a list fetched
 * once for two callers, a rotating refresh token spent once for many). A run
 * belongs to the given scope, not to its first caller, so one caller giving
 * up does not cancel it for the others; when the scope closes under a run,
 * its waiters are interrupted with it instead of waiting forever.
 *
 * Not exported: the OAuth package keeps its own copy for token refreshes,
 * since a package's `internal/` modules are not part of what it publishes.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as Scope from "effect/Scope"

/** @internal */
export type SingleFlight = <A, E>(key: string, run: Effect.Effect<A, E>) => Effect.Effect<A, E>

/** @internal */
export const make = (scope: Scope.Scope): SingleFlight => {
  // made by the first run (an empty `Map` is ~0.15 KiB a client that never shares a fetch keeps)
  let inFlight: Map<string, Deferred.Deferred<any, any>> | undefined
  return <A, E>(key: string, run: Effect.Effect<A, E>) =>
    Effect.flatMap(
      Effect.suspend(() => {
        const runs = inFlight ??= new Map()
        const existing = runs.get(key) as Deferred.Deferred<A, E> | undefined
        if (existing !== undefined) return Effect.succeed(existing)
        const deferred = Deferred.unsafeMake<A, E>(FiberId.none)
        runs.set(key, deferred)
        return Effect.map(Effect.forkIn(run, scope), (fiber) => {
          // the fiber's exit, whatever ended it (an interrupt before it even started included), is the waiters'
          fiber.addObserver((exit) => {
            if (runs.get(key) === deferred) runs.delete(key)
            Deferred.unsafeDone(deferred, exit)
          })
          return deferred
        })
      }),
      Deferred.await
    )
}
