import { FetchHttpClient, Headers, HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as RequestRefs from "../src/internal/requestRefs.js"

/** What a request of the platform's HttpClient would run with, read on the current fiber. */
const seen = Effect.all({
  propagation: FiberRef.get(HttpClient.currentTracerPropagation),
  tracerEnabled: FiberRef.get(FiberRef.currentTracerEnabled),
  redacted: FiberRef.get(Headers.currentRedactedNames),
  init: Effect.serviceOption(FetchHttpClient.RequestInit)
})

const refs = RequestRefs.make({ secretNames: ["x-secret"], tracePropagation: false })

describe("RequestRefs: the settings every request runs with", () => {
  it.effect("around: set inside (no trace headers, no span under the built-in tracer, secrets redacted, manual redirects), restored after", () =>
    Effect.gen(function*() {
      const before = yield* seen
      const inside = yield* refs.around(seen, ["dpop"])
      expect(inside.propagation).toBe(false)
      expect(inside.tracerEnabled).toBe(false)
      expect(inside.redacted).toEqual([...before.redacted, "x-secret", "dpop"])
      expect(Option.getOrUndefined(inside.init)).toEqual({ credentials: "omit", redirect: "manual" })
      expect(yield* seen).toEqual(before)
    }).pipe(Effect.provideService(FetchHttpClient.RequestInit, { credentials: "omit" })))

  it.effect("apply: the same settings for the rest of the fiber, which around then leaves as they are", () =>
    Effect.gen(function*() {
      const before = yield* seen
      yield* Effect.updateFiberRefs((fiberId, fiberRefs) => refs.apply(fiberRefs, fiberId))
      const after = yield* seen
      expect(after.propagation).toBe(false)
      expect(after.tracerEnabled).toBe(false)
      expect(after.redacted).toEqual([...before.redacted, "x-secret"])
      expect(Option.getOrUndefined(after.init)).toEqual({ redirect: "manual" })
      expect(yield* refs.around(seen, [])).toEqual(after)
      // a hook's secret header not among the names yet is redacted for that request only
      expect((yield* refs.around(seen, ["dpop"])).redacted).toEqual([...after.redacted, "dpop"])
      expect(yield* seen).toEqual(after)
    }))

  it.effect("apply: each fiber's settings come from its own context and names, also when they change between fibers", () =>
    Effect.gen(function*() {
      const shared = RequestRefs.make({ secretNames: ["x-secret"], tracePropagation: false })
      // on a fiber of its own each time, as a send's (nothing it sets comes back to this one)
      const applied = Effect.fork(Effect.zipRight(
        Effect.updateFiberRefs((fiberId, fiberRefs) => shared.apply(fiberRefs, fiberId)),
        seen
      )).pipe(Effect.flatMap(Fiber.await), Effect.flatten)
      const omit = yield* Effect.provideService(applied, FetchHttpClient.RequestInit, { credentials: "omit" })
      const include = yield* Effect.provideService(applied, FetchHttpClient.RequestInit, { credentials: "include" })
      const named = yield* Effect.locally(applied, Headers.currentRedactedNames, ["x-app"])
      const omitAgain = yield* Effect.provideService(applied, FetchHttpClient.RequestInit, { credentials: "omit" })
      expect(Option.getOrUndefined(omit.init)).toEqual({ credentials: "omit", redirect: "manual" })
      expect(Option.getOrUndefined(include.init)).toEqual({ credentials: "include", redirect: "manual" })
      expect(Option.getOrUndefined(named.init)).toEqual({ redirect: "manual" })
      expect(named.redacted).toEqual(["x-app", "x-secret"])
      expect(omitAgain).toEqual(omit)
    }))

  it.effect("with tracePropagation the tracer stays on (the headers come from the span)", () =>
    Effect.gen(function*() {
      const propagating = RequestRefs.make({ secretNames: [], tracePropagation: true })
      const inside = yield* propagating.around(seen, [])
      expect(inside.propagation).toBe(true)
      expect(inside.tracerEnabled).toBe(true)
    }))
})
