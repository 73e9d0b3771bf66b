import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/**
 * `client`, with each request's effect run under `wrap` of the current
 * tracer (`Redaction.httpClient`). A module of its own: `Redaction` is on
 * every session's path (a stdio server's stderr is masked with it), the
 * platform's `HttpClient` only on an HTTP client's.
 *
 * @internal
 */
export const withTracer = (
  client: HttpClient.HttpClient,
  wrap: (tracer: Tracer.Tracer) => Tracer.Tracer
): HttpClient.HttpClient =>
  HttpClient.transformResponse(client, (effect) =>
    Tracer.tracerWith((current) => {
      const wrapped = wrap(current)
      return wrapped === current ? effect : Effect.withTracer(effect, wrapped)
    }))
