import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"

const note = (i: number) => JsonRpc.notification("n", { i })
const indexOf = (m: JsonRpc.Incoming) => ((m as JsonRpc.Notification).params as { i: number }).i
const closed = new McpError.TransportError({ reason: "Closed", message: "closed" })

/** Listens to `inbound`, recording what it hands on and how it ended. */
const record = (inbound: McpTransport.Inbound) => {
  const got: Array<number> = []
  const ends: Array<McpTransport.ConnectionError | undefined> = []
  const stop = inbound.listen((ms) => ms.forEach((m) => got.push(indexOf(m))), (error) => ends.push(error))
  return { got, ends, stop }
}

describe("McpTransport.makeInboundBuffer: the one inbound buffer of the transports", () => {
  it.effect("is bounded: an offer that finds it full waits until the session listens, nothing is dropped", () =>
    Effect.gen(function*() {
      const inbound = McpTransport.makeInboundBuffer(2)
      yield* inbound.offer([note(0), note(1)])
      const blocked = yield* Effect.fork(inbound.offer([note(2)]))
      yield* Effect.yieldNow()
      expect(blocked.unsafePoll()).toBeNull()
      expect(inbound.size()).toBe(2)
      const listener = record(inbound)
      expect(listener.got).toEqual([0, 1])
      yield* Fiber.join(blocked)
      expect(listener.got).toEqual([0, 1, 2])
      yield* inbound.fail(closed)
      expect(listener.ends).toEqual([closed])
    }))

  it.effect("offerNow takes nothing when full (a transport that cannot pause ends the connection); the end comes after what waits, once", () =>
    Effect.sync(() => {
      const inbound = McpTransport.makeInboundBuffer(1)
      expect(inbound.offerNow([note(0)])).toBe(true)
      expect(inbound.offerNow([note(1)])).toBe(false)
      expect(inbound.size()).toBe(1)
      inbound.end(closed)
      // after the end, input is ignored, and a later end changes nothing
      expect(inbound.offerNow([note(2)])).toBe(true)
      inbound.end()
      const listener = record(inbound)
      expect(listener.got).toEqual([0])
      expect(listener.ends).toEqual([closed])
      expect(inbound.size()).toBe(0)
    }))

  it.effect("a clean end reaches the listener as no error", () =>
    Effect.sync(() => {
      const inbound = McpTransport.makeInboundBuffer(4)
      const listener = record(inbound)
      inbound.offerNow([note(0)])
      inbound.end()
      expect(listener.got).toEqual([0])
      expect(listener.ends).toEqual([undefined])
    }))

  it.effect("stopping the listener keeps later input for the next listener, in order", () =>
    Effect.sync(() => {
      const inbound = McpTransport.makeInboundBuffer(100)
      inbound.offerNow([note(0), note(1)])
      const first = record(inbound)
      inbound.offerNow([note(2)])
      first.stop()
      inbound.offerNow([note(3)])
      inbound.end(closed)
      expect(first.ends).toEqual([])
      const second = record(inbound)
      expect([...first.got, ...second.got]).toEqual([0, 1, 2, 3])
      expect(second.ends).toEqual([closed])
    }))

  it.effect("a listener that starts while offers wait for room takes everything, in order", () =>
    Effect.gen(function*() {
      for (let yields = 0; yields < 10; yields++) {
        const inbound = McpTransport.makeInboundBuffer(1)
        yield* inbound.offer([note(0)])
        const writer = yield* Effect.fork(
          Effect.forEach([1, 2, 3], (i) => Effect.zipRight(Effect.yieldNow(), inbound.offer([note(i)])))
        )
        for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
        const listener = record(inbound)
        yield* Fiber.join(writer)
        expect(listener.got).toEqual([0, 1, 2, 3])
      }
    }))
})
