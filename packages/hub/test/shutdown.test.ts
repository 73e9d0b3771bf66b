// Closing a registry: every server stops at once, so a CLI's Ctrl-C waits for its slowest server,
// not for the sum of them all. In-memory servers whose transports take seconds to close (as a stdio
// server that ignores stdin closing and SIGTERM does), on the TestClock.
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as ServerRegistry from "../src/ServerRegistry.js"
import * as TransportFactory from "../src/TransportFactory.js"
import { configs, memoryFactory } from "./fixtures/memoryFactory.js"

/** The memory factory, each transport taking `millis` to close (its shutdown ladder, say). */
const slowToClose = (millis: number, closed: Array<string>) =>
  Layer.effect(
    TransportFactory.TransportFactory,
    Effect.map(
      Effect.provide(TransportFactory.TransportFactory, memoryFactory({})),
      (memory): TransportFactory.Service => ({
        make: (config, options) =>
          Effect.zipLeft(
            memory.make(config, options),
            Effect.addFinalizer(() =>
              Effect.zipRight(Effect.sleep(millis), Effect.sync(() => closed.push(config.name)))
            )
          )
      })
    )
  )

describe("closing a registry", () => {
  it.effect("stops its servers at once, so it takes as long as the slowest one", () =>
    Effect.gen(function*() {
      const closed: Array<string> = []
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        ServerRegistry.layer({ servers: configs("a", "b", "c") }).pipe(Layer.provide(slowToClose(4000, closed))),
        scope
      )
      const registry = Context.get(context, ServerRegistry.ServerRegistry)
      expect((yield* registry.awaitReady()).map((s) => s._tag)).toEqual(["Connected", "Connected", "Connected"])
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("4 seconds")
      const closedAfter4s = [...closed].sort()
      const doneAfter4s = Option.isSome(yield* Fiber.poll(closing))
      // let a sequential close finish too, so that a failing run ends
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(closing)
      expect(closedAfter4s).toEqual(["a", "b", "c"])
      expect(doneAfter4s).toBe(true)
    }))
})
