/**
 * Answers the server's `elicitation/create` requests (form and URL mode).
 * Providing this service is what makes the client advertise the
 * `elicitation` capability.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as McpError from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly elicit: (
    params: McpSchema.ElicitRequestParams
  ) => Effect.Effect<McpSchema.ElicitResult, McpError.ProtocolError>
  readonly modes: ReadonlyArray<"form" | "url">
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Elicitation extends Context.Tag("@mcp-effect/core/Elicitation")<Elicitation, Service>() {}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  elicit: Service["elicit"],
  options?: { readonly modes?: ReadonlyArray<"form" | "url"> | undefined }
): Layer.Layer<Elicitation> => Layer.succeed(Elicitation, { elicit, modes: options?.modes ?? ["form"] })

/**
 * The capability object this service advertises.
 *
 * @since 0.1.0
 * @category utils
 */
export const capability = (service: Service): NonNullable<McpSchema.ClientCapabilities["elicitation"]> =>
  Object.fromEntries(service.modes.map((mode) => [mode, {}]))

/**
 * Fills in the `default` of every property of a form's `requestedSchema`
 * that the accepted content leaves out (SEP-1034), so a server always gets
 * the values the form showed.
 *
 * @since 0.1.0
 * @category utils
 */
export const applyDefaults = (
  requestedSchema: McpSchema.ElicitRequestFormParams["requestedSchema"],
  content: Content | undefined
): Content => {
  // property names come from the server: own keys only, on an object with no prototype to hit
  const filled: Record<string, Content[string]> = Object.assign(Object.create(null), content)
  const properties = (requestedSchema as { properties?: Record<string, { default?: unknown }> }).properties ?? {}
  for (const [name, property] of Object.entries(properties)) {
    if (filled[name] === undefined && isValue(property.default)) filled[name] = property.default
  }
  return { ...filled }
}

/**
 * The values of an accepted form.
 *
 * @since 0.1.0
 * @category models
 */
export type Content = NonNullable<McpSchema.ElicitResult["content"]>

const isValue = (u: unknown): u is Content[string] =>
  typeof u === "string" || typeof u === "number" || typeof u === "boolean" ||
  (Array.isArray(u) && u.every((item) => typeof item === "string"))

/**
 * An elicitation handler that accepts every form with its defaults and
 * declines URL requests: handy for tests and headless runs.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAcceptDefaults: Layer.Layer<Elicitation> = layer((params) =>
  Effect.succeed(
    params.mode === "url" ?
      { action: "decline" } :
      { action: "accept", content: applyDefaults(params.requestedSchema, {}) }
  )
)
