/**
 * The HTTP client's spans of a transport's requests carry the server URL
 * (`url.full`, `url.query`) and the response headers (a redirect's
 * `Location`): a key in the URL's query or a code in a `Location` would be
 * exported with them. A transport's request fibers run with the current
 * tracer wrapped by `Redaction.tracer` (set in their refs by `RequestRefs`,
 * no step per request), so every such attribute is redacted before any
 * tracer sees it.
 *
 * @internal
 */
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Context from "effect/Context"
import type * as DefaultServices from "effect/DefaultServices"
import * as Tracer from "effect/Tracer"

type Services = Context.Context<DefaultServices.DefaultServices>

/**
 * The default services with their tracer wrapped in `Redaction.tracer`; the
 * same services when there is nothing to wrap (Effect's built-in tracer, or
 * one already redacting).
 *
 * @internal
 */
export const services = (services: Services): Services => {
  const tracer = Context.get(services, Tracer.Tracer)
  const redacting = Redaction.tracer(tracer)
  return redacting === tracer ? services : Context.add(services, Tracer.Tracer, redacting)
}
