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
 * - the secret header names added to the redacted ones;
 * - `redirect: "manual"` for `fetch` (redirects are followed by
 *   `Redirect.follow`).
 *
 * `set` puts them on a fiber of the connection's own for good (a send or a
 * stream reader, which ends with its work): one step instead of four
 * `Effect.locally` (each an acquire / use / release) around every request;
 * `apply` is the same change as a function of the refs, for a fiber made
 * with them already set (`Runtime.runFork`'s `updateRefs`).
 * `around` runs a request with them: as it is on such a fiber, on a child
 * fiber that `set` ran on elsewhere (connecting, closing), so they never
 * leak into the caller's fiber.
 *
 * @internal
 */
export interface RequestRefs {
  readonly set: Effect.Effect<void>
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

/** @internal */
export const make = (options: {
  readonly secretNames: ReadonlyArray<string>
  readonly tracePropagation: boolean
}): RequestRefs => {
  // what the last caller's refs turned into: the same refs (every call of an untraced app) reuse it, so a
  // request copies no context and no list of names
  let last: {
    readonly context: Context.Context<never>
    readonly services: Context.Context<never>
    readonly redacted: ReadonlyArray<string | RegExp>
    readonly enabled: boolean
    readonly newContext: Context.Context<never>
    readonly newRedacted: ReadonlyArray<string | RegExp>
    readonly newEnabled: boolean
  } | undefined
  const apply = (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime): FiberRefs.FiberRefs => {
    const context = FiberRefs.getOrDefault(refs, FiberRef.currentContext)
    const services = FiberRefs.getOrDefault(refs, DefaultServices.currentServices)
    const redacted = FiberRefs.getOrDefault(refs, Headers.currentRedactedNames)
    const enabled = FiberRefs.getOrDefault(refs, FiberRef.currentTracerEnabled)
    if (
      last === undefined || last.context !== context || last.services !== services || last.redacted !== redacted ||
      last.enabled !== enabled
    ) {
      const init = Context.getOption(context, FetchHttpClient.RequestInit)
      const tracer = Context.get(services, Tracer.Tracer)
      last = {
        context,
        services,
        redacted,
        enabled,
        newContext: Context.add(context, FetchHttpClient.RequestInit, { ...Option.getOrUndefined(init), redirect: "manual" }),
        newRedacted: [...redacted, ...options.secretNames],
        newEnabled: enabled && (options.tracePropagation || tracer !== builtInTracer)
      }
    }
    return FiberRefs.updateManyAs(refs, {
      entries: [
        [HttpClient.currentTracerPropagation, [[fiberId, options.tracePropagation]]],
        [FiberRef.currentTracerEnabled, [[fiberId, last.newEnabled]]],
        [Headers.currentRedactedNames, [[fiberId, last.newRedacted]]],
        [FiberRef.currentContext, [[fiberId, last.newContext]]],
        [setFor, [[fiberId, self]]]
      ]
    })
  }
  const self: RequestRefs = {
    set: Effect.updateFiberRefs((fiberId, refs) => apply(refs, fiberId)),
    apply,
    around: (effect, secretNames) =>
      Effect.withFiberRuntime((fiber) => {
        // elsewhere (connecting, closing: rare) on a fiber of its own, so nothing leaks into the caller's
        if (fiber.getFiberRef(setFor) !== self) {
          return Effect.flatMap(
            Effect.fork(Effect.zipRight(self.set, self.around(effect, secretNames))),
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
