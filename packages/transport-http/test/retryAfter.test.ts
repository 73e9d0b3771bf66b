// Retry-After on 429 / 503, under TestClock.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import { startFaultServer } from "./fixtures/faultServer.js"
import { awaitSleepUntil, connections, peer, realSleep, resource, resultOf, waitFor } from "./fixtures/harness.js"

const spaced = Schedule.spaced("100 millis").pipe(Schedule.intersect(Schedule.recurs(5)))

describe("HttpTransport: Retry-After", () => {
  for (
    const [retryAfter, maxRetryAfter, expected] of [["3", undefined, 3000], ["3600", "2 seconds", 2000]] as const
  ) {
    it.scoped(`initialize answered 503 + Retry-After ${retryAfter}: the next connection starts at ${expected} ms`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer({ get405: true }))
        server.faults.failPosts = 1
        server.faults.retryAfter = retryAfter
        const next = yield* connections({ url: server.url, reconnect: { schedule: spaced }, maxRetryAfter })
        const first = yield* peer(yield* next)
        const failed = yield* Effect.flip(first.initialize)
        expect(failed).toMatchObject({ _tag: "TransportError", status: 503 })
        const pulled = yield* Effect.fork(next)
        yield* awaitSleepUntil(100) // the reconnect schedule's own delay
        yield* TestClock.adjust(100)
        yield* awaitSleepUntil(expected) // then the rest of the server's pause
        yield* TestClock.adjust(expected - 101)
        yield* realSleep(20)
        expect(Option.isNone(yield* Fiber.poll(pulled))).toBe(true)
        yield* TestClock.adjust(1)
        const second = yield* peer(yield* Fiber.join(pulled))
        expect(resultOf(yield* second.initialize).serverInfo.name).toBe("fault-server")
      }).pipe(Effect.provide(FetchHttpClient.layer)))
  }

  it.scoped("a request answered 429 + Retry-After is sent again after the pause, once the pause is over", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.failPosts = 1
      server.faults.failStatus = 429
      server.faults.retryAfter = "1"
      const posts = () => server.requests.filter((r) => r.body?.method === "tools/list").length
      const call = yield* Effect.fork(client.request("tools/list"))
      yield* awaitSleepUntil(1000)
      yield* TestClock.adjust(999)
      yield* realSleep(20)
      expect(posts()).toBe(1)
      yield* TestClock.adjust(1)
      expect(resultOf(yield* Fiber.join(call)).tools[0].name).toBe("count")
      expect(posts()).toBe(2)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("a GET stream answered 503 + Retry-After is reopened after the pause, not the schedule's delay", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      server.faults.failGets = 1
      server.faults.retryAfter = "2"
      const next = yield* connections({ url: server.url, sseReconnect: spaced })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const gets = () => server.requests.filter((r) => r.method === "GET").length
      yield* waitFor("the first GET", () => gets() === 1)
      yield* awaitSleepUntil(2000)
      yield* TestClock.adjust(1999)
      yield* realSleep(20)
      expect(gets()).toBe(1)
      yield* TestClock.adjust(1)
      yield* waitFor("the second GET", () => gets() === 2)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
