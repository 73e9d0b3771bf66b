import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import type * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
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
 * `Effect.locally` (each an acquire / use / release) around every request.
 * `around` runs a request with them: as it is on such a fiber, inside
 * `Effect.locally` elsewhere (connecting, closing).
 *
 * @internal
 */
export interface RequestRefs {
  readonly set: Effect.Effect<void>
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
  // derived once per parent value: the fibers of a session share their context and names
  const contexts = new WeakMap<Context.Context<never>, Context.Context<never>>()
  const names = new WeakMap<ReadonlyArray<string | RegExp>, ReadonlyArray<string | RegExp>>()
  const values = (refs: FiberRefs.FiberRefs) => {
    const tracer = Context.get(FiberRefs.getOrDefault(refs, DefaultServices.currentServices), Tracer.Tracer)
    const context = FiberRefs.getOrDefault(refs, FiberRef.currentContext)
    let manual = contexts.get(context)
    if (manual === undefined) {
      const init = Context.getOption(context, FetchHttpClient.RequestInit)
      manual = Context.add(context, FetchHttpClient.RequestInit, {
        ...(init._tag === "Some" ? init.value : undefined),
        redirect: "manual"
      })
      contexts.set(context, manual)
    }
    const redacted = FiberRefs.getOrDefault(refs, Headers.currentRedactedNames)
    let redactedNames = names.get(redacted)
    if (redactedNames === undefined) {
      redactedNames = [...redacted, ...options.secretNames]
      names.set(redacted, redactedNames)
    }
    return {
      tracerEnabled: options.tracePropagation || tracer !== builtInTracer ?
        FiberRefs.getOrDefault(refs, FiberRef.currentTracerEnabled) :
        false,
      redactedNames,
      context: manual
    }
  }

  const self: RequestRefs = {
    set: Effect.updateFiberRefs((fiberId: FiberId.Runtime, refs) => {
      const v = values(refs)
      return FiberRefs.updateManyAs(refs, {
        entries: [
          [HttpClient.currentTracerPropagation, [[fiberId, options.tracePropagation]]],
          [FiberRef.currentTracerEnabled, [[fiberId, v.tracerEnabled]]],
          [Headers.currentRedactedNames, [[fiberId, v.redactedNames]]],
          [FiberRef.currentContext, [[fiberId, v.context]]],
          [setFor, [[fiberId, self]]]
        ]
      })
    }),
    around: (effect, secretNames) =>
      Effect.withFiberRuntime((fiber) => {
        const redacted = fiber.getFiberRef(Headers.currentRedactedNames)
        const missing = secretNames.filter((name) => !redacted.includes(name))
        if (fiber.getFiberRef(setFor) === self) {
          return missing.length === 0 ? effect : Effect.locally(effect, Headers.currentRedactedNames, [...redacted, ...missing])
        }
        const v = values(fiber.getFiberRefs())
        return effect.pipe(
          Effect.locally(HttpClient.currentTracerPropagation, options.tracePropagation),
          Effect.locally(FiberRef.currentTracerEnabled, v.tracerEnabled),
          Effect.locally(Headers.currentRedactedNames, [...v.redactedNames, ...missing]),
          Effect.locally(FiberRef.currentContext, v.context)
        )
      })
  }
  return self
}
