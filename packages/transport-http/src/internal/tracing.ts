import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Tracer from "effect/Tracer"

/** Effect's built-in tracer, which keeps spans in memory and reports them to no one. */
const builtInTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * The client with its `http.client` spans made only when a tracer other than
 * Effect's built-in one is installed (the rule the session applies to its
 * request spans). A span with its attributes and redacted headers costs more
 * than the rest of a request's client side, and without a tracer it reaches
 * no one. (With trace propagation on, the client is used as it is: its
 * headers come from the span.)
 *
 * @internal
 */
export const spansWhenTraced = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (effect) =>
    Effect.withFiberRuntime((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled) && fiber.currentTracer === builtInTracer ?
        Effect.withTracerEnabled(effect, false) :
        effect
    ))
