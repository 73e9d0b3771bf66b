/**
 * Validates values against JSON Schemas: `structuredContent` against a
 * tool's `outputSchema`, and accepted elicitation answers against the
 * form's `requestedSchema` before they are sent. The client uses this service
 * when it is in the context and `JsonSchemaValidator.cfworker` otherwise;
 * provide `JsonSchemaValidator.layerCompiler(...)` to plug in another library.
 *
 * The default loads `@cfworker/json-schema` on first use (a dynamic
 * `import()`): an app whose tools declare no `outputSchema` and which answers
 * no elicitation form never loads it, and a bundler puts it in a chunk of its own.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as internal from "./internal/policy/jsonSchemaValidator.js"

/**
 * A JSON Schema (an object, or `true` / `false`), kept as the server sent it.
 *
 * @since 0.2.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown } | boolean

/**
 * One reason a value does not match: where in the value (a JSON pointer,
 * `""` for the root), which keyword failed, and a readable message.
 *
 * @since 0.2.0
 * @category models
 */
export const Issue = Schema.Struct({
  instanceLocation: Schema.String,
  keywordLocation: Schema.String,
  message: Schema.String
})

/**
 * @since 0.2.0
 * @category models
 */
export type Issue = typeof Issue.Type

/**
 * A value did not match its schema (`Mismatch`), the schema itself could not
 * be compiled or used (`InvalidSchema`, e.g. an unresolvable `$ref`), or a
 * compiler loaded on demand could not be loaded (`Unavailable`, e.g. a
 * browser that failed to fetch the validator's chunk; the next check tries again).
 *
 * @since 0.2.0
 * @category errors
 */
export class ValidationError extends Schema.TaggedError<ValidationError>(
  "@mcp-effect/core/JsonSchemaValidator/ValidationError"
)("ValidationError", {
  reason: Schema.Literal("Mismatch", "InvalidSchema", "Unavailable"),
  issues: Schema.Array(Issue)
}) {
  override get message(): string {
    return internal.formatIssues(this.reason, this.issues)
  }
}

/**
 * Turns a schema into a check that lists the issues of a value (empty when
 * it matches). May throw for a schema it cannot compile; the service turns
 * that into `ValidationError { reason: "InvalidSchema" }`.
 *
 * @since 0.2.0
 * @category models
 */
export type Compiler = (schema: JsonSchema) => (value: unknown) => ReadonlyArray<Issue>

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Succeeds when `value` matches `schema`. Compiled checks are cached per schema object. */
  readonly validate: (schema: JsonSchema, value: unknown) => Effect.Effect<void, ValidationError>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class JsonSchemaValidator
  extends Context.Tag("@mcp-effect/core/JsonSchemaValidator")<JsonSchemaValidator, Service>()
{}

/**
 * A validator over a compiler, caching the compiled check of each schema
 * object (a `WeakMap`: schemas of tools that are gone are released).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (compile: Compiler): Service => {
  type Compiled = ((value: unknown) => ReadonlyArray<Issue>) | ValidationError
  // boolean schemas cannot be WeakMap keys; two entries cover them
  const objects = new WeakMap<object, Compiled>()
  const booleans = new Map<boolean, Compiled>()
  const compiled = (schema: JsonSchema): Compiled => {
    const hit = typeof schema === "boolean" ? booleans.get(schema) : objects.get(schema)
    if (hit !== undefined) return hit
    let entry: Compiled
    try {
      entry = compile(schema)
    } catch (cause) {
      entry = invalidSchema(cause)
    }
    if (typeof schema === "boolean") booleans.set(schema, entry)
    else objects.set(schema, entry)
    return entry
  }
  return {
    validate: (schema, value) =>
      Effect.suspend(() => {
        const check = compiled(schema)
        if (typeof check !== "function") return Effect.fail(check)
        let issues: ReadonlyArray<Issue>
        try {
          issues = check(value)
        } catch (cause) {
          return Effect.fail(invalidSchema(cause))
        }
        return issues.length === 0 ? Effect.void : Effect.fail(new ValidationError({ reason: "Mismatch", issues }))
      })
  }
}

const messageOf = (cause: unknown) => cause instanceof Error ? cause.message : String(cause)

const invalidSchema = (cause: unknown) =>
  new ValidationError({
    reason: "InvalidSchema",
    issues: [{ instanceLocation: "", keywordLocation: "", message: messageOf(cause) }]
  })

/**
 * A validator whose compiler is loaded on its first check (typically a
 * dynamic `import()` of the library), so a flow that checks nothing never
 * loads it. Once loaded, checks run as with
 * {@link make}. A failed load is `ValidationError { reason: "Unavailable" }`
 * for that check, and the next check loads again.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeLazy = (load: () => Promise<Compiler>): Service => {
  let loaded: Service | undefined
  const loading = Effect.tryPromise({
    try: load,
    catch: (cause) =>
      new ValidationError({
        reason: "Unavailable",
        issues: [{ instanceLocation: "", keywordLocation: "", message: messageOf(cause) }]
      })
  }).pipe(Effect.map((compile) => (loaded ??= make(compile))))
  return {
    validate: (schema, value) =>
      loaded !== undefined ?
        loaded.validate(schema, value) :
        Effect.flatMap(loading, (service) => service.validate(schema, value))
  }
}

/**
 * Loads the compiler on `@cfworker/json-schema` (drafts 4, 7, 2019-09 and
 * 2020-12, chosen by `$schema`, 2020-12 when absent as MCP specifies). It runs
 * in Node, browsers and workers, and never modifies the schema it is given.
 * A function that loads, rather than the compiler itself, so that importing
 * this module does not import the library.
 *
 * @since 0.2.0
 * @category compilers
 */
export const loadCfworkerCompiler: () => Promise<Compiler> = internal.loadCfworker

/**
 * The default validator, on `@cfworker/json-schema`, loaded on its first
 * check ({@link makeLazy} over {@link loadCfworkerCompiler}).
 *
 * @since 0.2.0
 * @category constructors
 */
export const cfworker: Service = /*#__PURE__*/ makeLazy(loadCfworkerCompiler)

/**
 * The default validator as a Layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<JsonSchemaValidator> = /* @__PURE__ */ Layer.succeed(JsonSchemaValidator, cfworker)

/**
 * A validator on another JSON Schema library.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerCompiler = (compile: Compiler): Layer.Layer<JsonSchemaValidator> =>
  Layer.succeed(JsonSchemaValidator, make(compile))
