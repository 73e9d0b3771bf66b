/**
 * Tools: definitions, listing and calling.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  BaseMetadata,
  EmptyResult,
  Icons,
  JsonObject,
  Meta,
  ObjectJsonSchema,
  PaginatedResult,
  RequestParams
} from "./common.js"
import { ContentBlock } from "./content.js"
import { CacheHints } from "./modern.js"
import { TaskMetadata } from "./tasks.js"

/**
 * Hints about a tool's behaviour. Untrusted unless the server is trusted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolAnnotations = Schema.Struct({
  title: Schema.optional(Schema.String),
  readOnlyHint: Schema.optional(Schema.Boolean),
  destructiveHint: Schema.optional(Schema.Boolean),
  idempotentHint: Schema.optional(Schema.Boolean),
  openWorldHint: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * Whether a tool may, must or must not run as a task (absent means
 * `"forbidden"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolExecution = Schema.Struct({
  taskSupport: Schema.optional(Schema.Literal("forbidden", "optional", "required"))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ToolExecution = typeof ToolExecution.Type

/**
 * A tool's `inputSchema`: a JSON Schema whose root has `type: "object"`, or
 * no `type` and a top-level `anyOf` / `oneOf` / `allOf` (what schema
 * libraries make of a union of objects; `ToolFormat` flattens it into one
 * object for the providers). Kept exactly as the server sent it.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolInputSchema = JsonObject.pipe(
  Schema.filter(
    (schema): schema is { readonly type?: "object" | undefined; readonly [key: string]: unknown } =>
      schema.type === "object" ||
      (schema.type === undefined &&
        (["anyOf", "oneOf", "allOf"] as const).some((key) => Array.isArray(schema[key]) && schema[key].length > 0)),
    {
      identifier: "ToolInputSchema",
      message: () => "expected a JSON Schema with type \"object\" (or a top-level anyOf / oneOf / allOf) at its root",
      arbitrary: () => (fc) =>
        fc.dictionary(fc.string(), fc.jsonValue()).map((schema) => ({ ...schema, type: "object" as const }))
    }
  )
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type ToolInputSchema = typeof ToolInputSchema.Type

/**
 * A tool definition. `inputSchema` and `outputSchema` are kept exactly as
 * the server sent them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Tool = Schema.Struct({
  ...BaseMetadata.fields,
  ...Icons.fields,
  description: Schema.optional(Schema.String),
  inputSchema: ToolInputSchema,
  outputSchema: Schema.optional(ObjectJsonSchema),
  annotations: Schema.optional(ToolAnnotations),
  execution: Schema.optional(ToolExecution),
  _meta: Schema.optional(Meta)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Tool = typeof Tool.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListToolsResult = Schema.Struct({
  ...CacheHints.fields,
  ...PaginatedResult.fields,
  tools: Schema.Array(Tool)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ListToolsResult = typeof ListToolsResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CallToolRequestParams = Schema.Struct({
  ...RequestParams.fields,
  name: Schema.String,
  arguments: Schema.optional(JsonObject),
  task: Schema.optional(TaskMetadata)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CallToolRequestParams = typeof CallToolRequestParams.Type

/**
 * The outcome of a tool call. A missing `content` decodes as `[]` (some
 * servers omit it next to `structuredContent`); tool failures are
 * `isError: true` results, not protocol errors.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult = Schema.Struct({
  ...EmptyResult.fields,
  content: Schema.optionalWith(Schema.Array(ContentBlock), { default: () => [] }),
  structuredContent: Schema.optional(JsonObject),
  isError: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CallToolResult = typeof CallToolResult.Type
