import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as SingleFlight from "../src/internal/client/singleFlight.js"

describe("SingleFlight", () => {
  it.effect("callers in flight share one run; a caller giving up does not cancel it for the others", () =>
    Effect.gen(function*() {
      const shared = SingleFlight.make(yield* Effect.scope)
      const gate = yield* Deferred.make<void>()
      let runs = 0
      const run = Effect.zipRight(Effect.sync(() => runs++), Effect.as(Deferred.await(gate), "value"))
      const a = yield* Effect.fork(shared("k", run))
      const b = yield* Effect.fork(shared("k", run))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(a)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(b)).toBe("value")
      expect(runs).toBe(1)
      // the next call starts a new run
      expect(yield* shared("k", run)).toBe("value")
      expect(runs).toBe(2)
    }).pipe(Effect.scoped))

  it.effect("waiters are interrupted, not left waiting, when the owning scope closes under a run", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const shared = SingleFlight.make(scope)
      const waiters = yield* Effect.forEach([1, 2], () => Effect.fork(shared("k", Effect.never)))
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      for (const waiter of waiters) {
        const exit = yield* Fiber.await(waiter)
        expect(Exit.isInterrupted(exit)).toBe(true)
      }
    }))
})
