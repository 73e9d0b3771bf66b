import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as internal from "../src/internal/stdioTransport.js"
import { type Event, type ExitsOn, fakeBackend } from "./fakeBackend.js"

/**
 * Opens one connection to a fake server, then closes it: the ladder runs on
 * the TestClock, which the test moves on.
 */
const closing = (exitsOn: ExitsOn) =>
  Effect.gen(function*() {
    const events: Array<Event> = []
    const logs: Array<string> = []
    const scope = yield* Scope.make()
    // finalizers log with the logger in place when they were added
    const logger = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ logLevel, message }) => {
        if (logLevel._tag !== "Debug") logs.push(`${logLevel.label} ${String(message)}`)
      })
    )
    yield* Effect.gen(function*() {
      const { transport } = yield* internal.make(
        { command: "fake", shutdown: { stdinGraceMillis: 300, termGraceMillis: 500 } },
        fakeBackend(exitsOn, events)
      )
      yield* Effect.flatten(Stream.toPull(transport.connections))
    }).pipe(Scope.extend(scope), Effect.provide(logger))
    const fiber = yield* Effect.fork(Scope.close(scope, Exit.void))
    /** Moves the clock to `at` and returns the events so far. */
    const at = (millis: number) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(millis)
        return events.map(({ at, event }) => `${at} ${event}`)
      })
    return { at, done: Effect.map(Fiber.poll(fiber), (exit) => exit._tag === "Some"), logs }
  })

describe("StdioTransport shutdown ladder (TestClock, through the backend interface)", () => {
  it.effect("a server that exits when stdin closes is never signalled, then its group is swept", () =>
    Effect.gen(function*() {
      const { at, done, logs } = yield* closing("stdin")
      assert.deepStrictEqual(yield* at(0), ["0 stdin closed", "0 SIGKILL"])
      assert.isTrue(yield* done)
      assert.deepStrictEqual(logs, [])
    }))

  it.effect("a server that ignores stdin closing gets SIGTERM exactly after the stdin grace", () =>
    Effect.gen(function*() {
      const { at, done, logs } = yield* closing("SIGTERM")
      assert.deepStrictEqual(yield* at(299), ["0 stdin closed"])
      assert.isFalse(yield* done)
      assert.deepStrictEqual(yield* at(300), ["0 stdin closed", "300 SIGTERM", "300 SIGKILL"])
      assert.isTrue(yield* done)
      assert.deepStrictEqual(logs, [])
    }))

  it.effect("a server that ignores SIGTERM gets SIGKILL exactly after both graces, with a warning", () =>
    Effect.gen(function*() {
      const { at, done, logs } = yield* closing("SIGKILL")
      assert.deepStrictEqual(yield* at(300), ["0 stdin closed", "300 SIGTERM"])
      assert.deepStrictEqual(yield* at(799), ["0 stdin closed", "300 SIGTERM"])
      assert.isFalse(yield* done)
      assert.deepStrictEqual(yield* at(800), ["0 stdin closed", "300 SIGTERM", "800 SIGKILL", "800 SIGKILL"])
      assert.isTrue(yield* done)
      assert.deepStrictEqual(logs, ["WARN stdio server ignored SIGTERM: SIGKILL"])
    }))

  it.effect("a server that cannot be reaped is given up on 2 s after SIGKILL, with an error", () =>
    Effect.gen(function*() {
      const { at, done, logs } = yield* closing("never")
      assert.deepStrictEqual(yield* at(800), ["0 stdin closed", "300 SIGTERM", "800 SIGKILL"])
      assert.deepStrictEqual(yield* at(2_799), ["0 stdin closed", "300 SIGTERM", "800 SIGKILL"])
      assert.deepStrictEqual(yield* at(2_800), ["0 stdin closed", "300 SIGTERM", "800 SIGKILL", "2800 SIGKILL"])
      assert.isFalse(yield* done)
      yield* at(4_800)
      assert.isTrue(yield* done)
      assert.deepStrictEqual(logs, [
        "WARN stdio server ignored SIGTERM: SIGKILL",
        "ERROR stdio server could not be stopped"
      ])
    }))
})
