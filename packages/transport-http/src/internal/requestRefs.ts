import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as RedactSpans from "./redactSpans.js"

/**
 * What every HTTP request of a transport runs with, as fiber refs of the
 * platform's `HttpClient`:
 *
 * - trace headers (`traceparent`, `b3`) only with `tracePropagation` (in a
 *   browser each one needs the server's CORS permission);
 * - the client's `http.client` span only when a tracer other than Effect's
 *   built-in one is installed (the rule the session applies to its request
 *   spans: a span with its attributes and redacted headers costs more than
 *   the rest of a request's client side, and without a tracer it reaches no
 *   one), or with `tracePropagation` (its headers come from the span);
 * - the secret header names added to the redacted ones, and the tracer
 *   wrapped by `RedactSpans` (no query value or `Location` in a span);
 * - `redirect: "manual"` for `fetch` (redirects are followed by
 *   `Redirect.follow`).
 *
 * `apply` sets them in a fiber's refs: a fiber of the connection's own (a
 * send or a stream reader, which ends with its work) is made with them
 * (`Runtime.runFork`'s `updateRefs`, see `Sends`), no step at all instead
 * of four `Effect.locally` (each an acquire / use / release) around every
 * request. `around` runs a request with them: as it is on such a fiber, on
 * a child fiber that set them elsewhere (connecting, closing), so they
 * never leak into the caller's fiber.
 *
 * @internal
 */
export interface RequestRefs {
  readonly apply: (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime) => FiberRefs.FiberRefs
  readonly around: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    secretNames: ReadonlyArray<string>
  ) => Effect.Effect<A, E, R>
}

/** Effect's built-in tracer, which keeps spans in memory and reports them to no one. */
const builtInTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/** the `RequestRefs` a fiber's refs were set for, if any */
const setFor = FiberRef.unsafeMake<RequestRefs | undefined>(undefined)

/** `f`, remembering its result for the last argument (compared by reference). */
const lastOf = <A, B>(f: (a: A) => B): (a: A) => B => {
  let lastA: A | undefined
  let lastB: B
  return (a) => a === lastA ? lastB : lastB = f(lastA = a)
}

/** @internal */
export const make = (options: {
  readonly secretNames: ReadonlyArray<string>
  readonly tracePropagation: boolean
}): RequestRefs => {
  // the fibers of one connection nearly always start from the same context and names: what `apply`
  // derives from them (each derived context is a copy) is kept for the last ones
  const manualRedirects = lastOf((context: Context.Context<never>) =>
    Context.add(context, FetchHttpClient.RequestInit, {
      ...Option.getOrUndefined(Context.getOption(context, FetchHttpClient.RequestInit)),
      redirect: "manual"
    })
  )
  const withSecretNames = lastOf((names: ReadonlyArray<string | RegExp>) => [...names, ...options.secretNames])
  const redactingServices = lastOf(RedactSpans.services)
  const apply = (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime): FiberRefs.FiberRefs => {
    const services = FiberRefs.getOrDefault(refs, DefaultServices.currentServices)
    const tracer = Context.get(services, Tracer.Tracer)
    return FiberRefs.updateManyAs(refs, {
      entries: [
        [DefaultServices.currentServices, [[fiberId, redactingServices(services)]]],
        [HttpClient.currentTracerPropagation, [[fiberId, options.tracePropagation]]],
        [FiberRef.currentTracerEnabled, [[
          fiberId,
          FiberRefs.getOrDefault(refs, FiberRef.currentTracerEnabled) &&
          (options.tracePropagation || tracer !== builtInTracer)
        ]]],
        [Headers.currentRedactedNames, [[
          fiberId,
          withSecretNames(FiberRefs.getOrDefault(refs, Headers.currentRedactedNames))
        ]]],
        [FiberRef.currentContext, [[fiberId, manualRedirects(FiberRefs.getOrDefault(refs, FiberRef.currentContext))]]],
        [setFor, [[fiberId, self]]]
      ]
    })
  }
  const self: RequestRefs = {
    apply,
    around: (effect, secretNames) =>
      Effect.withFiberRuntime((fiber) => {
        // elsewhere (connecting, closing: rare) on a fiber of its own, so nothing leaks into the caller's
        if (fiber.getFiberRef(setFor) !== self) {
          return Effect.flatMap(
            Effect.fork(Effect.zipRight(
              Effect.updateFiberRefs((fiberId, refs) => apply(refs, fiberId)),
              self.around(effect, secretNames)
            )),
            (child) => Effect.flatten(Effect.onInterrupt(Fiber.await(child), () => Fiber.interrupt(child)))
          )
        }
        // a hook's secret header not among the names yet is redacted for that request only
        const redacted = fiber.getFiberRef(Headers.currentRedactedNames)
        const missing = secretNames.filter((name) => !redacted.includes(name))
        return missing.length === 0 ?
          effect :
          Effect.locally(effect, Headers.currentRedactedNames, [...redacted, ...missing])
      })
  }
  return self
}
