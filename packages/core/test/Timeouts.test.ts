import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import { makeSweeper, type Timed } from "../src/internal/engine/timeouts.js"

interface Entry extends Timed {
  readonly name: string
}

const entry = (name: string, startedAt: number, idleMillis: number): Entry => ({
  name,
  idleMillis,
  totalMillis: undefined,
  startedAt,
  lastActivity: startedAt
})

/** A sweeper on the test clock, recording when each entry expired. */
const sweeper = Effect.gen(function*() {
  const clock = yield* Effect.clock
  const expired: Array<[string, number]> = []
  // the caller's table of requests: the sweeper reads the deadlines from it
  const table = new Set<Entry>()
  const sweeper = yield* makeSweeper<Entry>(clock, {
    watched: () => table,
    expire: (e) => {
      table.delete(e)
      expired.push([e.name, clock.unsafeCurrentTimeMillis()])
    }
  })
  const timeouts = {
    watch: (e: Entry) => {
      table.add(e)
      sweeper.watch(e)
    },
    /** The request was answered: it leaves the table. */
    unwatch: (e: Entry) => table.delete(e),
    sleeping: () => sweeper.sleeping()
  }
  return { timeouts, expired }
})

describe("the deadline sweeper", () => {
  it.scoped("expires each entry at its deadline, an earlier one arriving late included", () =>
    Effect.gen(function*() {
      const { expired, timeouts } = yield* sweeper
      timeouts.watch(entry("slow", 0, 10_000))
      yield* TestClock.adjust("1 second")
      // comes while the sweeper sleeps towards 10 s: it must not wait until then
      timeouts.watch(entry("fast", 1_000, 2_000))
      yield* TestClock.adjust("2 seconds")
      expect(expired).toEqual([["fast", 3_000]])
      yield* TestClock.adjust("7 seconds")
      expect(expired).toEqual([["fast", 3_000], ["slow", 10_000]])
    }))

  it.scoped("holds no fiber once no deadline is left ahead", () =>
    Effect.gen(function*() {
      const { expired, timeouts } = yield* sweeper
      expect(timeouts.sleeping()).toBe(false)
      const answered = entry("answered", 0, 5_000)
      timeouts.watch(answered)
      expect(timeouts.sleeping()).toBe(true)
      timeouts.unwatch(answered)
      // it sleeps on towards the deadline it was shown, then ends
      yield* TestClock.adjust("5 seconds")
      expect(timeouts.sleeping()).toBe(false)
      expect(expired).toEqual([])
      // and starts again for the next deadline
      timeouts.watch(entry("next", 5_000, 1_000))
      expect(timeouts.sleeping()).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(expired).toEqual([["next", 6_000]])
      expect(timeouts.sleeping()).toBe(false)
    }))

  it.effect("stops with its scope", () =>
    Effect.gen(function*() {
      const { expired, timeouts } = yield* Effect.scoped(
        Effect.tap(sweeper, ({ timeouts }) => Effect.sync(() => timeouts.watch(entry("late", 0, 1_000))))
      )
      expect(timeouts.sleeping()).toBe(false)
      timeouts.watch(entry("after close", 0, 1_000))
      yield* TestClock.adjust("2 seconds")
      expect(expired).toEqual([])
    }))

  it.effect("one fiber for every table on a clock: each expires only its own entries, none is left once all are closed", () =>
    Effect.gen(function*() {
      const scopeA = yield* Scope.make()
      const scopeB = yield* Scope.make()
      const a = yield* Scope.extend(sweeper, scopeA)
      const b = yield* Scope.extend(sweeper, scopeB)
      a.timeouts.watch(entry("a", 0, 3_000))
      b.timeouts.watch(entry("b", 0, 5_000))
      yield* TestClock.adjust("3 seconds")
      expect(a.expired).toEqual([["a", 3_000]])
      expect(b.expired).toEqual([])
      // a's table has no deadline left, but the clock's one fiber sleeps on towards b's
      expect(a.timeouts.sleeping()).toBe(true)
      // the first table is gone: the other's deadline still comes
      yield* Scope.close(scopeA, Exit.void)
      b.timeouts.watch(entry("b2", 3_000, 1_000))
      yield* TestClock.adjust("1 second")
      expect(b.expired).toEqual([["b2", 4_000]])
      expect(b.timeouts.sleeping()).toBe(true)
      // the last table gone: no fiber sleeps towards b's deadline any more, and none expires after
      yield* Scope.close(scopeB, Exit.void)
      expect(b.timeouts.sleeping()).toBe(false)
      yield* TestClock.adjust("5 seconds")
      expect(b.expired).toEqual([["b2", 4_000]])
      expect(a.expired).toEqual([["a", 3_000]])
    }))
})
