import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"

/**
 * Callers that arrive while a run is in flight share its result instead of
 * starting another (e.g. an explicit `listTools` right after the automatic
 * one). The run lives in `scope`, so interrupting one caller does not cancel
 * it for the others.
 *
 * @internal
 */
export const singleFlight = <A, E>(effect: Effect.Effect<A, E>, scope: Scope.Scope): Effect.Effect<A, E> => {
  let inflight: Fiber.RuntimeFiber<A, E> | undefined
  const start = Effect.suspend(() => {
    if (inflight) return Effect.succeed(inflight)
    return Effect.forkIn(
      Effect.ensuring(effect, Effect.sync(() => inflight = undefined)),
      scope
    ).pipe(Effect.tap((fiber) => Effect.sync(() => inflight = fiber.unsafePoll() === null ? fiber : undefined)))
  })
  return Effect.flatMap(start, Fiber.join)
}
