import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as FanOut from "../src/internal/engine/fanOut.js"
import * as LazySubscriptionRef from "../src/internal/engine/lazySubscriptionRef.js"

describe("FanOut", () => {
  it.effect("every subscriber gets each message; a sliding one that falls behind loses the oldest, the others nothing", () =>
    Effect.gen(function*() {
      const fanOut = FanOut.make(Queue.sliding<number>(3))
      yield* fanOut.publish(0) // nobody subscribed: dropped
      const slow = yield* fanOut.subscribe()
      const fast = yield* fanOut.subscribe()
      const seen: Array<number> = []
      for (let i = 1; i <= 5; i++) {
        yield* fanOut.publish(i)
        seen.push(yield* Queue.take(fast))
      }
      expect(seen).toEqual([1, 2, 3, 4, 5])
      expect(fanOut.size()).toBe(3)
      expect(Chunk.toReadonlyArray(yield* Queue.takeAll(slow))).toEqual([3, 4, 5])
      expect(fanOut.size()).toBe(0)
    }).pipe(Effect.scoped))

  it.effect("a subscriber leaves with its scope; shutdown interrupts those waiting, and later subscribers too", () =>
    Effect.gen(function*() {
      const fanOut = FanOut.make(Queue.sliding<string>(8))
      const scope = yield* Scope.make()
      const leaving = yield* Scope.extend(fanOut.subscribe(), scope)
      yield* Scope.close(scope, Exit.void)
      expect(yield* Queue.isShutdown(leaving)).toBe(true)
      yield* fanOut.publish("after") // the queue shut down is no longer offered to: no interruption here

      const waiting = yield* fanOut.subscribe()
      const taker = yield* Effect.fork(Queue.take(waiting))
      yield* Effect.yieldNow()
      yield* fanOut.shutdown
      expect(Exit.isInterrupted(yield* Fiber.await(taker))).toBe(true)
      const late = yield* fanOut.subscribe()
      expect(yield* Queue.isShutdown(late)).toBe(true)
    }).pipe(Effect.scoped))
})

describe("LazySubscriptionRef", () => {
  it.effect("changes start with the value when subscribed, then each set, in order and once", () =>
    Effect.gen(function*() {
      const ref = LazySubscriptionRef.make(1)
      yield* ref.set(2) // before anyone follows: only the value changes
      expect(yield* ref.get).toBe(2)
      // a pull runs the stream: after the first one, each is subscribed
      const first = yield* Stream.toPull(ref.changes)
      const second = yield* Stream.toPull(ref.changes)
      const take = (pull: typeof first, n: number) =>
        Effect.gen(function*() {
          const seen: Array<number> = []
          while (seen.length < n) for (const item of yield* Effect.orDie(pull)) seen.push(item)
          return seen
        })
      expect(yield* take(first, 1)).toEqual([2])
      yield* ref.set(3)
      expect(yield* take(second, 1)).toEqual([3])
      yield* ref.set(4)
      expect(yield* take(first, 2)).toEqual([3, 4])
      expect(yield* take(second, 1)).toEqual([4])
      expect(yield* ref.get).toBe(4)
    }).pipe(Effect.scoped))
})
