import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"

const note = (i: number) => JsonRpc.notification("n", { i })
const indexOf = (m: JsonRpc.Incoming) => ((m as JsonRpc.Notification).params as { i: number }).i
const closed = new McpError.TransportError({ reason: "Closed", message: "closed" })

describe("McpTransport.makeInboundBuffer: the one inbound buffer of the transports", () => {
  it.effect("is bounded: a reader that finds it full waits until the session takes, nothing is dropped", () =>
    Effect.gen(function*() {
      const inbound = McpTransport.makeInboundBuffer(2)
      yield* inbound.offer([note(0), note(1)])
      const blocked = yield* Effect.fork(inbound.offer([note(2)]))
      yield* Effect.yieldNow()
      expect(blocked.unsafePoll()).toBeNull()
      expect(inbound.size()).toBe(2)
      const pull = yield* Stream.toPull(inbound.incoming)
      expect(Chunk.toReadonlyArray(yield* pull).map(indexOf)).toEqual([0, 1])
      yield* Fiber.join(blocked)
      expect(Chunk.toReadonlyArray(yield* pull).map(indexOf)).toEqual([2])
      yield* inbound.fail(closed)
      expect(yield* Effect.flip(pull)).toEqual(Option.some(closed))
    }).pipe(Effect.scoped))

  it.effect("offerNow takes nothing when full (a transport that cannot pause ends the connection); an end comes after what waits", () =>
    Effect.gen(function*() {
      const inbound = McpTransport.makeInboundBuffer(1)
      expect(inbound.offerNow([note(0)])).toBe(true)
      expect(inbound.offerNow([note(1)])).toBe(false)
      expect(inbound.size()).toBe(1)
      inbound.end(closed)
      // after the end, input is ignored
      expect(inbound.offerNow([note(2)])).toBe(true)
      const exit = yield* Effect.either(Stream.runCollect(inbound.incoming))
      expect(exit).toEqual(Either.left(closed))
      expect(inbound.size()).toBe(0)
    }))

  it.effect("switching to push hands over every waiting message, in order, whenever an interrupt lands", () =>
    Effect.gen(function*() {
      for (let yields = 0; yields < 30; yields++) {
        const inbound = McpTransport.makeInboundBuffer(100)
        yield* inbound.offer([note(0), note(1), note(2)])
        const got: Array<number> = []
        // a reader keeps delivering while push starts
        const writer = yield* Effect.fork(
          Effect.forEach([3, 4, 5, 6], (i) => Effect.zipRight(Effect.yieldNow(), inbound.offer([note(i)])))
        )
        const pushing = yield* Effect.fork(inbound.push((ms) => ms.forEach((m) => got.push(indexOf(m)))))
        for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
        yield* Fiber.interrupt(pushing)
        yield* Fiber.join(writer)
        // whatever push did not take is still there for the stream, in order
        yield* inbound.fail(closed)
        const remaining: Array<number> = []
        yield* inbound.incoming.pipe(
          Stream.runForEach((m) => Effect.sync(() => remaining.push(indexOf(m)))),
          Effect.ignore
        )
        expect([...got, ...remaining]).toEqual([0, 1, 2, 3, 4, 5, 6])
      }
    }))
})
