/**
 * Elicitation (`elicitation/create`): form mode with a restricted JSON
 * Schema of primitive fields, and URL mode for out-of-band interactions.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { EmptyResult, JsonObject, RequestParams } from "./common.js"
import { TaskMetadata } from "./tasks.js"

const described = {
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String)
}

/**
 * @since 0.1.0
 * @category schemas
 */
export const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...described,
  minLength: Schema.optional(Schema.Number),
  maxLength: Schema.optional(Schema.Number),
  format: Schema.optional(Schema.Literal("email", "uri", "date", "date-time")),
  default: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type StringSchema = typeof StringSchema.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const NumberSchema = Schema.Struct({
  type: Schema.Literal("number", "integer"),
  ...described,
  minimum: Schema.optional(Schema.Number),
  maximum: Schema.optional(Schema.Number),
  default: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type NumberSchema = typeof NumberSchema.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  ...described,
  default: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type BooleanSchema = typeof BooleanSchema.Type

const TitledOption = Schema.Struct({ const: Schema.String, title: Schema.String })

/**
 * Single choice among plain values.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...described,
  enum: Schema.Array(Schema.String),
  default: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type UntitledSingleSelectEnumSchema = typeof UntitledSingleSelectEnumSchema.Type

/**
 * Single choice among values with display titles.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...described,
  oneOf: Schema.Array(TitledOption),
  default: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TitledSingleSelectEnumSchema = typeof TitledSingleSelectEnumSchema.Type

const multiSelect = {
  type: Schema.Literal("array"),
  ...described,
  minItems: Schema.optional(Schema.Number),
  maxItems: Schema.optional(Schema.Number),
  default: Schema.optional(Schema.Array(Schema.String))
}

/**
 * Several choices among plain values.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UntitledMultiSelectEnumSchema = Schema.Struct({
  ...multiSelect,
  items: Schema.Struct({ type: Schema.Literal("string"), enum: Schema.Array(Schema.String) })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type UntitledMultiSelectEnumSchema = typeof UntitledMultiSelectEnumSchema.Type

/**
 * Several choices among values with display titles.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TitledMultiSelectEnumSchema = Schema.Struct({
  ...multiSelect,
  items: Schema.Struct({ anyOf: Schema.Array(TitledOption) })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TitledMultiSelectEnumSchema = typeof TitledMultiSelectEnumSchema.Type

/**
 * Deprecated enum with display names in the non-standard `enumNames`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LegacyTitledEnumSchema = Schema.Struct({
  ...UntitledSingleSelectEnumSchema.fields,
  enumNames: Schema.optional(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type LegacyTitledEnumSchema = typeof LegacyTitledEnumSchema.Type

/**
 * Any enum field. The legacy shape is tried before the untitled one so that
 * `enumNames` is kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EnumSchema = Schema.Union(
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type EnumSchema = typeof EnumSchema.Type

/**
 * One field of an elicitation form: string, number, boolean or enum. The enum
 * members are listed first and flat, so that a plain string schema never
 * swallows an enum.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PrimitiveSchemaDefinition = Schema.Union(...EnumSchema.members, StringSchema, NumberSchema, BooleanSchema)

/**
 * @since 0.1.0
 * @category schemas
 */
export type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

// compiled on the first form checked, not when the module loads
let isPrimitive: ((u: unknown) => u is PrimitiveSchemaDefinition) | undefined
const isPrimitiveSchemaDefinition = (u: unknown): u is PrimitiveSchemaDefinition =>
  (isPrimitive ??= Schema.is(PrimitiveSchemaDefinition))(u)

/**
 * The form of an elicitation: a flat object schema whose properties are
 * {@link PrimitiveSchemaDefinition}s. Checked, but kept exactly as sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitationRequestedSchema = JsonObject.pipe(
  Schema.filter(
    (schema): schema is {
      readonly type: "object"
      readonly properties: { readonly [name: string]: PrimitiveSchemaDefinition }
      readonly required?: ReadonlyArray<string>
      readonly [key: string]: unknown
    } =>
      schema.type === "object" &&
      Predicate.isRecord(schema.properties) &&
      Object.values(schema.properties).every(isPrimitiveSchemaDefinition) &&
      (schema.required === undefined ||
        (Array.isArray(schema.required) && schema.required.every(Predicate.isString))),
    {
      identifier: "ElicitationRequestedSchema",
      message: () => "expected an object schema whose properties are string, number, boolean or enum schemas"
    }
  )
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ElicitationRequestedSchema = typeof ElicitationRequestedSchema.Type

/**
 * Form mode. `mode` is absent in requests from 2025-06-18 servers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestFormParams = Schema.Struct({
  ...RequestParams.fields,
  mode: Schema.optional(Schema.Literal("form")),
  message: Schema.String,
  requestedSchema: ElicitationRequestedSchema,
  task: Schema.optional(TaskMetadata)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ElicitRequestFormParams = typeof ElicitRequestFormParams.Type

/**
 * URL mode: the user completes the interaction out of band at `url`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestURLParams = Schema.Struct({
  ...RequestParams.fields,
  mode: Schema.Literal("url"),
  message: Schema.String,
  elicitationId: Schema.String,
  url: Schema.String,
  task: Schema.optional(TaskMetadata)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestParams = Schema.Union(ElicitRequestURLParams, ElicitRequestFormParams)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/**
 * The user's answer. `content` is present only when a form was accepted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitResult = Schema.Struct({
  ...EmptyResult.fields,
  action: Schema.Literal("accept", "decline", "cancel"),
  content: Schema.optional(Schema.Record({
    key: Schema.String,
    value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String))
  }))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ElicitResult = typeof ElicitResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ElicitationCompleteNotificationParams = Schema.Struct({
  elicitationId: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ElicitationCompleteNotificationParams = typeof ElicitationCompleteNotificationParams.Type

/**
 * The `data` of a JSON-RPC error with code -32042: URL elicitations the user
 * must complete before the request can succeed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UrlElicitationRequiredErrorData = Schema.Struct({
  elicitations: Schema.Array(ElicitRequestURLParams)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type UrlElicitationRequiredErrorData = typeof UrlElicitationRequiredErrorData.Type
