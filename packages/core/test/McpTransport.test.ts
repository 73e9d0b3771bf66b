import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import { eventually } from "./utils.js"

const connection: McpTransport.Connection = {
  description: "fake",
  inbound: McpTransport.makeInboundBuffer(1),
  send: () => Effect.void
}

/** A connect that fails `failures` times, recording when each attempt happened. */
const flakyConnect = (failures: number, attempts: Array<number>) =>
  Effect.gen(function*() {
    attempts.push(yield* TestClock.currentTimeMillis)
    if (attempts.length <= failures) {
      return yield* new McpError.TransportError({ reason: "Connect", message: `refused #${attempts.length}` })
    }
    return connection
  })

/** An observer whose consumer has (or has not yet) established a connection, recording the retries. */
const observer = (isEstablished: () => boolean, retries: Array<McpTransport.Retry> = []) =>
  Stream.provideService(McpTransport.ConnectionObserver, {
    established: Effect.sync(isEstablished),
    retrying: (retry) => Effect.sync(() => retries.push(retry))
  })

const established = observer(() => true)

describe("McpTransport.fromConnect", () => {
  it.effect("backs off between failed connects following the schedule", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const schedule = Schedule.exponential("100 millis", 2).pipe(Schedule.intersect(Schedule.recurs(5)))
      const fiber = yield* McpTransport.fromConnect(flakyConnect(3, attempts), { schedule }).pipe(
        established,
        Stream.take(1),
        Stream.runCollect,
        Effect.fork
      )
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(fiber)
      expect(attempts).toEqual([0, 100, 300, 700])
    }))

  it.effect("gives up with the last error when the schedule ends", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const schedule = Schedule.spaced("1 second").pipe(Schedule.intersect(Schedule.recurs(2)))
      const fiber = yield* McpTransport.fromConnect(flakyConnect(10, attempts), { schedule }).pipe(
        established,
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.reason).toBe("Exhausted")
      expect(error.message).toContain("refused #3")
      expect(attempts).toEqual([0, 1000, 2000])
    }))

  it.effect("connections that worked but each ended too soon are reported as such when the schedule gives up", () =>
    Effect.gen(function*() {
      const connect = Effect.succeed(connection)
      const fiber = yield* McpTransport.fromConnect(connect, {
        schedule: Schedule.spaced("1 second").pipe(Schedule.intersect(Schedule.recurs(2))),
        healthyAfterMillis: 5_000
      }).pipe(established, Stream.runDrain, Effect.fork)
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.reason).toBe("Exhausted")
      expect(error.message).toBe(
        "gave up after 3 connection attempts: each connection ended within 5000 ms of opening " +
          "(healthyAfterMillis), too soon to reset the schedule"
      )
    }))

  it.effect("the default schedule is jittered, capped and bounded", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const fiber = yield* McpTransport.fromConnect(flakyConnect(100, attempts)).pipe(
        established,
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("5 minutes")
      expect((yield* Effect.flip(Fiber.join(fiber))).reason).toBe("Exhausted")
      expect(attempts).toHaveLength(9)
      const gaps = attempts.slice(1).map((t, i) => t - attempts[i])
      expect(gaps[0]).toBeGreaterThanOrEqual(80)
      expect(gaps[0]).toBeLessThanOrEqual(120)
      for (const gap of gaps) expect(gap).toBeLessThanOrEqual(10_000)
      expect(gaps.at(-1)).toBeGreaterThan(5_000)
    }))

  it.effect("a connection that stayed up resets the backoff", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const schedule = Schedule.exponential("1 second", 2)
      const connect = Effect.gen(function*() {
        attempts.push(yield* TestClock.currentTimeMillis)
        return connection
      })
      const pulled: Array<number> = []
      const fiber = yield* McpTransport.fromConnect(connect, { schedule, healthyAfterMillis: 5_000 }).pipe(
        Stream.mapEffect(() =>
          Effect.gen(function*() {
            pulled.push(yield* TestClock.currentTimeMillis)
            // the first two connections die at once, the third lives 6 s
            if (pulled.length === 3) yield* Effect.sleep("6 seconds")
          })
        ),
        Stream.take(4),
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      // gaps: 1 s, 2 s, then the third lived 6 s so the fourth waits 1 s again
      expect(attempts).toEqual([0, 1000, 3000, 10_000])
    }))

  it.effect("each connection's scope closes before the next connect", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      let n = 0
      const connect = Effect.acquireRelease(
        Effect.sync(() => {
          events.push(`open ${++n}`)
          return connection
        }),
        () => Effect.sync(() => events.push(`close ${n}`))
      )
      const fiber = yield* McpTransport.fromConnect(connect, { schedule: Schedule.spaced("1 millis") }).pipe(
        Stream.take(2),
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      yield* eventually(Effect.sync(() => events.length === 4))
      expect(events).toEqual(["open 1", "close 1", "open 2", "close 2"])
    }))

  it.effect("before any connection worked, a short budget applies and the error carries the cause", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const fiber = yield* McpTransport.fromConnect(flakyConnect(100, attempts)).pipe(Stream.runDrain, Effect.fork)
      yield* TestClock.adjust("700 millis")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(attempts).toEqual([0, 100, 300, 700])
      expect(error.reason).toBe("Exhausted")
      expect(error.message).toContain("no connection has worked yet")
      expect(error.message).toContain("refused #4")
      expect(error.cause).toMatchObject({ _tag: "TransportError", reason: "Connect", message: "refused #4" })
    }))

  it.effect("the first-connect budget is an option", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const firstConnect = Schedule.spaced("1 second").pipe(Schedule.intersect(Schedule.recurs(1)))
      const fiber = yield* McpTransport.fromConnect(flakyConnect(100, attempts), { firstConnect }).pipe(
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("1 second")
      expect((yield* Effect.flip(Fiber.join(fiber))).reason).toBe("Exhausted")
      expect(attempts).toEqual([0, 1000])
    }))

  it.effect("connections the consumer never established stay on the first budget; then the full schedule", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const connect = Effect.gen(function*() {
        attempts.push(yield* TestClock.currentTimeMillis)
        return connection
      })
      let pulled = 0
      const fiber = yield* McpTransport.fromConnect(connect, { schedule: Schedule.spaced("5 seconds") }).pipe(
        // the consumer establishes its third connection
        observer(() => pulled >= 3),
        Stream.tap(() => Effect.sync(() => pulled++)),
        Stream.take(5),
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      expect(attempts).toEqual([0, 100, 300, 5300, 10_300])
    }))

  it.effect("reports each retry to the observer before waiting for it", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const retries: Array<McpTransport.Retry> = []
      const fiber = yield* McpTransport.fromConnect(flakyConnect(2, attempts)).pipe(
        observer(() => false, retries),
        Stream.take(1),
        Stream.runDrain,
        Effect.fork
      )
      yield* TestClock.adjust("100 millis")
      // the second retry is announced while the transport waits for it
      expect(retries.map((r) => [r.attempt, Duration.toMillis(r.delay), r.lastFailure?.message])).toEqual([
        [1, 100, "refused #1"],
        [2, 200, "refused #2"]
      ])
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(fiber)
      expect(attempts).toEqual([0, 100, 300])
    }))

  it.effect("a failed giveUp ends the stream with its error at once, with no other attempt", () =>
    Effect.gen(function*() {
      const attempts: Array<number> = []
      const giveUp = yield* Deferred.make<never, McpError.TransportError>()
      const permanent = new McpError.TransportError({ reason: "Connect", message: "command not found" })
      const connect = Effect.gen(function*() {
        attempts.push(yield* TestClock.currentTimeMillis)
        // the second attempt finds that retrying cannot help
        if (attempts.length === 2) yield* Deferred.fail(giveUp, permanent)
        return yield* new McpError.TransportError({ reason: "Connect", message: `refused #${attempts.length}` })
      })
      const fiber = yield* McpTransport.fromConnect(connect, undefined, giveUp).pipe(Stream.runDrain, Effect.fork)
      yield* TestClock.adjust("1 minute")
      expect(yield* Effect.flip(Fiber.join(fiber))).toBe(permanent)
      expect(attempts).toEqual([0, 100])
    }))

  it.effect("the connection handed out last is closed when the consumer stops", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const connect = Effect.acquireRelease(
        Effect.sync(() => {
          events.push("open")
          return connection
        }),
        () => Effect.sync(() => events.push("close"))
      )
      const fiber = yield* McpTransport.fromConnect(connect).pipe(
        Stream.runForEach(() => Effect.never),
        Effect.fork
      )
      yield* eventually(Effect.sync(() => events.length === 1))
      yield* Fiber.interrupt(fiber)
      expect(events).toEqual(["open", "close"])
    }))
})
