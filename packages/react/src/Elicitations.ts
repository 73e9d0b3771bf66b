/**
 * Elicitation answered from the UI: `Elicitations.layer` is the core
 * `Elicitation` service (so the client advertises elicitation) whose requests
 * wait in a list that `usePendingElicitations` renders. A request the server
 * cancels leaves the list on its own.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Subscribable from "effect/Subscribable"
import * as Elicitation from "@mcp-effect/core/Elicitation"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as pending from "./internal/pending.js"
import { useSubscribable } from "./Live.js"
import { useService, valueOf } from "./RuntimeProvider.js"

/**
 * An elicitation request waiting for the user: a form (`params.mode` absent
 * or `"form"`, with `requestedSchema`) or a URL to open (`"url"`).
 *
 * @since 0.2.0
 * @category models
 */
export interface PendingElicitation {
  readonly id: number
  readonly params: McpSchema.ElicitRequestParams
  /** The user submitted the form (content is checked against `requestedSchema` by the client). */
  readonly accept: (content?: Elicitation.Content) => void
  /** The user said no. */
  readonly decline: () => void
  /** The user dismissed the request without answering. */
  readonly cancel: () => void
}

/**
 * @since 0.2.0
 * @category tags
 */
export class ElicitationRequests extends Context.Tag("@mcp-effect/react/ElicitationRequests")<
  ElicitationRequests,
  { readonly pending: Subscribable.Subscribable<ReadonlyArray<pending.Pending<McpSchema.ElicitRequestParams, McpSchema.ElicitResult>>> }
>() {}

/**
 * The `Elicitation` service backed by the UI, for the modes the UI renders.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options?: { readonly modes?: ReadonlyArray<"form" | "url"> | undefined }
): Layer.Layer<Elicitation.Elicitation | ElicitationRequests> =>
  Layer.effectContext(Effect.map(
    pending.make<McpSchema.ElicitRequestParams, McpSchema.ElicitResult>(),
    (queue) =>
      Context.make(ElicitationRequests, { pending: queue.pending }).pipe(
        Context.add(Elicitation.Elicitation, {
          elicit: queue.ask,
          modes: options?.modes ?? ["form", "url"]
        })
      )
  ))

const none: ReadonlyArray<never> = []

/**
 * The elicitation requests waiting for the user, oldest first.
 *
 * @since 0.2.0
 * @category hooks
 */
export const usePendingElicitations = (): ReadonlyArray<PendingElicitation> => {
  const service = valueOf(useService(ElicitationRequests))
  const list = useSubscribable(service?.pending, none)
  return list.map(({ answer, id, request }) => ({
    id,
    params: request,
    accept: (content) => answer(content === undefined ? { action: "accept" } : { action: "accept", content }),
    decline: () => answer({ action: "decline" }),
    cancel: () => answer({ action: "cancel" })
  }))
}

/**
 * One form field of a form elicitation, in the schema's order.
 *
 * @since 0.2.0
 * @category models
 */
export interface Field {
  readonly name: string
  readonly required: boolean
  readonly schema: McpSchema.PrimitiveSchemaDefinition
}

/**
 * The fields a form elicitation asks for (none for a URL elicitation).
 *
 * @since 0.2.0
 * @category utils
 */
export const fields = (params: McpSchema.ElicitRequestParams): ReadonlyArray<Field> => {
  if (params.mode === "url") return []
  const required = new Set(params.requestedSchema.required ?? [])
  return Object.entries(params.requestedSchema.properties).map(([name, schema]) => ({
    name,
    required: required.has(name),
    schema
  }))
}
