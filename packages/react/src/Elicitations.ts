/**
 * Elicitation answered from the UI: `Elicitations.layer` is the core
 * `Elicitation` service (so the client advertises elicitation) whose requests
 * wait in a list that `usePendingElicitations` renders. A request the server
 * cancels leaves the list on its own. An accepted form is checked against
 * its `requestedSchema` with the client's `JsonSchemaValidator` before it is
 * sent: an answer that does not match stays in the list with the reason in
 * `rejected`, for the user to correct. `fields` is the field model a form
 * renders (labels, defaults, selects and multi-selects of the spec's subset).
 *
 * @since 0.2.0
 */
import * as Elicitation from "@mcp-effect/core/Elicitation"
import * as JsonSchemaValidator from "@mcp-effect/core/JsonSchemaValidator"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Subscribable from "effect/Subscribable"
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
  /**
   * Why the last accepted answer was refused (it does not match
   * `requestedSchema`): show it and let the user correct the form.
   */
  readonly rejected: string | undefined
  /**
   * The user submitted the form. The content is checked against
   * `requestedSchema` first; an answer that does not match is not sent and
   * sets `rejected` instead.
   */
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
  {
    readonly pending: Subscribable.Subscribable<
      ReadonlyArray<pending.Pending<McpSchema.ElicitRequestParams, McpSchema.ElicitResult>>
    >
  }
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
  Layer.effectContext(
    Effect.flatMap(
      Effect.map(
        Effect.serviceOption(JsonSchemaValidator.JsonSchemaValidator),
        Option.getOrElse(() => JsonSchemaValidator.cfworker)
      ),
      (validator) =>
        pending.make<McpSchema.ElicitRequestParams, McpSchema.ElicitResult>((params, result) =>
          params.mode === "url" || result.action !== "accept" ?
            Effect.void :
            Effect.mapError(validator.validate(params.requestedSchema, result.content ?? {}), (error) => error.message)
        )
    ).pipe(Effect.map(
      (queue) =>
        Context.make(ElicitationRequests, { pending: queue.pending }).pipe(
          Context.add(Elicitation.Elicitation, {
            elicit: queue.ask,
            modes: options?.modes ?? ["form", "url"]
          })
        )
    ))
  )

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
  return list.map(({ answer, id, rejected, request }) => ({
    id,
    params: request,
    rejected,
    accept: (content) => answer(content === undefined ? { action: "accept" } : { action: "accept", content }),
    decline: () => answer({ action: "decline" }),
    cancel: () => answer({ action: "cancel" })
  }))
}

/**
 * A value of a form field: text, number, boolean, or the chosen values of a
 * multi-select.
 *
 * @since 0.2.0
 * @category models
 */
export type Value = string | number | boolean | ReadonlyArray<string>

/**
 * One choice of a select or multi-select: the value sent and the label shown
 * (the option's `title`, the legacy `enumNames` entry, or the value itself).
 *
 * @since 0.2.0
 * @category models
 */
export interface Choice {
  readonly value: string
  readonly label: string
}

interface FieldCommon {
  /** The property name (the key of the answer's content). */
  readonly name: string
  /** What to show: the schema's `title`, else the name. */
  readonly label: string
  readonly description: string | undefined
  readonly required: boolean
  /** The property's schema, exactly as the server sent it. */
  readonly schema: McpSchema.PrimitiveSchemaDefinition
}

/**
 * One field of a form elicitation, in the schema's order, with what a form
 * needs to render it: `Text` (with `format`, lengths), `Number` (`integer`,
 * bounds), `Boolean`, `Select` (one of `choices`: plain `enum`, `enumNames`,
 * or `oneOf` of `const` / `title`) and `MultiSelect` (an `array` of `enum`
 * or `anyOf` items, as checkboxes). `default` is the server's default.
 *
 * @since 0.2.0
 * @category models
 */
export type Field =
  | FieldCommon & {
    readonly _tag: "Text"
    readonly format: "email" | "uri" | "date" | "date-time" | undefined
    readonly minLength: number | undefined
    readonly maxLength: number | undefined
    readonly default: string | undefined
  }
  | FieldCommon & {
    readonly _tag: "Number"
    readonly integer: boolean
    readonly minimum: number | undefined
    readonly maximum: number | undefined
    readonly default: number | undefined
  }
  | FieldCommon & { readonly _tag: "Boolean"; readonly default: boolean | undefined }
  | FieldCommon & {
    readonly _tag: "Select"
    readonly choices: ReadonlyArray<Choice>
    readonly default: string | undefined
  }
  | FieldCommon & {
    readonly _tag: "MultiSelect"
    readonly choices: ReadonlyArray<Choice>
    readonly minItems: number | undefined
    readonly maxItems: number | undefined
    readonly default: ReadonlyArray<string> | undefined
  }

const fieldOf = (name: string, required: boolean, schema: McpSchema.PrimitiveSchemaDefinition): Field => {
  const common = { name, label: schema.title ?? name, description: schema.description, required, schema }
  switch (schema.type) {
    case "array": {
      const choices = "anyOf" in schema.items ?
        schema.items.anyOf.map((o): Choice => ({ value: o.const, label: o.title })) :
        schema.items.enum.map((value): Choice => ({ value, label: value }))
      return {
        ...common,
        _tag: "MultiSelect",
        choices,
        minItems: schema.minItems,
        maxItems: schema.maxItems,
        default: schema.default
      }
    }
    case "boolean":
      return { ...common, _tag: "Boolean", default: schema.default }
    case "number":
    case "integer":
      return {
        ...common,
        _tag: "Number",
        integer: schema.type === "integer",
        minimum: schema.minimum,
        maximum: schema.maximum,
        default: schema.default
      }
    case "string": {
      if ("oneOf" in schema) {
        const choices = schema.oneOf.map((o): Choice => ({ value: o.const, label: o.title }))
        return { ...common, _tag: "Select", choices, default: schema.default }
      }
      if ("enum" in schema) {
        const names = "enumNames" in schema ? schema.enumNames : undefined
        const choices = schema.enum.map((value, i): Choice => ({ value, label: names?.[i] ?? value }))
        return { ...common, _tag: "Select", choices, default: schema.default }
      }
      return {
        ...common,
        _tag: "Text",
        format: schema.format,
        minLength: schema.minLength,
        maxLength: schema.maxLength,
        default: schema.default
      }
    }
  }
}

/**
 * The fields a form elicitation asks for (none for a URL elicitation), from
 * the request's params or its `requestedSchema`.
 *
 * @since 0.2.0
 * @category utils
 */
export const fields = (
  form: McpSchema.ElicitRequestParams | McpSchema.ElicitationRequestedSchema
): ReadonlyArray<Field> => {
  if ("mode" in form && form.mode === "url") return []
  const schema = ("requestedSchema" in form ? form.requestedSchema : form) as McpSchema.ElicitationRequestedSchema
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).map(([name, property]) => fieldOf(name, required.has(name), property))
}

/**
 * The values a form starts with: each field's `default`, and `false` for a
 * boolean without one (an unchecked box is an answer).
 *
 * @since 0.2.0
 * @category utils
 */
export const initialValues = (form: ReadonlyArray<Field>): Record<string, Value> => {
  const values: Record<string, Value> = {}
  for (const field of form) {
    if (field.default !== undefined) values[field.name] = field.default
    else if (field._tag === "Boolean") values[field.name] = false
  }
  return values
}

/**
 * The content to `accept` from what the form holds: empty text of an
 * optional field is left out, numbers typed as text are read as numbers
 * (text that is no number is kept, and the check of `accept` says why it
 * does not match).
 *
 * @since 0.2.0
 * @category utils
 */
export const contentOf = (
  form: ReadonlyArray<Field>,
  values: Readonly<Record<string, Value | undefined>>
): Elicitation.Content => {
  const content: Record<string, Elicitation.Content[string]> = {}
  for (const field of form) {
    const value = values[field.name]
    if (value === undefined || (value === "" && !field.required)) continue
    if (field._tag === "Number" && typeof value === "string") {
      const n = value.trim() === "" ? Number.NaN : Number(value)
      content[field.name] = Number.isNaN(n) ? value : n
    } else {
      content[field.name] = typeof value === "object" ? [...value] : value
    }
  }
  return content
}
