/**
 * JSON Schema to the OpenAPI 3.0 subset that Gemini function declarations
 * accept. Total: any JSON value goes in, a schema inside the subset comes out.
 *
 * What the subset holds (and what the property test checks):
 * - every node has a `type` (`STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`,
 *   `ARRAY`, `OBJECT`) or is an `anyOf` of such nodes;
 * - `enum` only on `STRING`, and only strings; `format` only `enum` /
 *   `date-time` on strings, `int32` / `int64` on integers, `float` /
 *   `double` on numbers;
 * - `properties` / `required` / `minProperties` / `maxProperties` only on
 *   `OBJECT`, with `required` naming declared properties; `items` always on
 *   `ARRAY` and only there; `minItems` / `maxItems`, `minLength` /
 *   `maxLength`, `minimum` / `maximum` only where they belong;
 * - `nullable`, `description` and `title` anywhere.
 *
 * How JSON Schema maps onto it:
 * - local `$ref`s are inlined; a reference back into itself (a recursive
 *   schema) becomes a shallow node of the same kind (an `OBJECT` without
 *   properties), and a node budget bounds very large or deep schemas;
 * - `allOf` branches are merged; `anyOf` / `oneOf` drop their `null` branch
 *   into `nullable`, collapse to one node when one branch is left, merge when
 *   every branch is an object (required: what all branches require) and stay
 *   an `anyOf` otherwise; `type` arrays are handled the same way;
 * - enum values that are not strings, and `pattern`s (Gemini's regex
 *   dialect may reject one), are moved into the description (a mixed enum
 *   keeps its string values: Gemini takes `enum` on strings only,
 *   https://ai.google.dev/api/caching#Schema);
 * - a property whose name breaks Gemini's rule for parameter names is
 *   declared under a name that keeps it (other characters become `_`, a
 *   `_` goes in front of a first character Gemini refuses, a suffix keeps
 *   it apart from its siblings: `geminiNames.ts`, whose `serverArguments`
 *   gives a call's arguments back their server's names);
 * - an object with no properties has no `properties` (Gemini refuses an
 *   empty one), and a tool without arguments gets no `parameters`;
 * - a schema that allows anything becomes `STRING` (a model may always pass
 *   a string there); arrays without `items` get string items;
 * - every other keyword (`not`, `if`, `patternProperties`, `default`,
 *   `examples`, `$schema`, ...) is dropped.
 *
 * @since 0.2.0
 */
import type { GeminiSchema, GeminiType } from "../../ToolFormat.js"
import * as Names from "./geminiNames.js"
import { define, isCount, isFiniteNumber, isRecord, type JsonRecord, own, resolvePointer, stringArray } from "./json.js"
import { enumValues, isNullSchema, type JsonType, merge, typesOf, without } from "./jsonSchemaNode.js"

type Mutable = { -readonly [K in keyof GeminiSchema]: GeminiSchema[K] }

const geminiTypes: Record<JsonType, GeminiType> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT"
}

const formats: Partial<Record<GeminiType, ReadonlySet<string>>> = {
  STRING: new Set(["enum", "date-time"]),
  INTEGER: new Set(["int32", "int64"]),
  NUMBER: new Set(["float", "double"])
}

const maxDepth = 32
const maxNodes = 10_000

interface Context {
  readonly root: unknown
  readonly refs: ReadonlyArray<string>
  readonly depth: number
  readonly budget: { nodes: number }
}

const annotate = (out: Mutable, node: JsonRecord): Mutable => {
  const description = own(node, "description")
  const title = own(node, "title")
  if (typeof title === "string") out.title = title
  if (typeof description === "string") out.description = description
  return out
}

const withNote = (out: Mutable, note: string): Mutable => {
  out.description = out.description === undefined ? note : `${out.description} (${note})`
  return out
}

/** A value of any shape: a string is always acceptable. */
const anything = (node: unknown, nullable: boolean): GeminiSchema => {
  const out: Mutable = { type: "STRING" }
  if (isRecord(node)) annotate(out, node)
  if (nullable) out.nullable = true
  return out
}

const describeValues = (values: ReadonlyArray<unknown>): string =>
  `one of: ${values.map((v) => JSON.stringify(v) ?? String(v)).join(", ")}`

const typed = (node: JsonRecord, type: JsonType, nullable: boolean, context: Context): GeminiSchema => {
  const geminiType = geminiTypes[type]
  const out = annotate({ type: geminiType }, node)
  if (nullable) out.nullable = true
  const format = own(node, "format")
  if (typeof format === "string" && formats[geminiType]?.has(format) && format !== "enum") out.format = format
  const values = enumValues(node)
  switch (type) {
    case "string": {
      if (values !== undefined && values.length > 0) {
        // a mixed enum keeps its strings as the enum; the other values are described
        const strings = values.filter((v): v is string => typeof v === "string")
        const others = values.filter((v) => typeof v !== "string")
        if (strings.length > 0) out.enum = [...new Set(strings)]
        if (others.length > 0) {
          withNote(out, strings.length > 0 ? `also ${describeValues(others)}` : describeValues(others))
        }
      }
      if (isCount(own(node, "minLength"))) out.minLength = own(node, "minLength") as number
      if (isCount(own(node, "maxLength"))) out.maxLength = own(node, "maxLength") as number
      // Gemini's regex dialect may reject a pattern: the model reads it in the description instead
      if (typeof own(node, "pattern") === "string") withNote(out, `pattern: ${own(node, "pattern") as string}`)
      break
    }
    case "number":
    case "integer": {
      if (values !== undefined && values.length > 0) withNote(out, describeValues(values))
      if (isFiniteNumber(own(node, "minimum"))) out.minimum = own(node, "minimum") as number
      if (isFiniteNumber(own(node, "maximum"))) out.maximum = own(node, "maximum") as number
      break
    }
    case "boolean": {
      if (values !== undefined && values.length > 0) withNote(out, describeValues(values))
      break
    }
    case "array": {
      const items = own(node, "items")
      const prefix = own(node, "prefixItems")
      const tuple = Array.isArray(items) ? items : Array.isArray(prefix) ? prefix : undefined
      out.items = tuple !== undefined
        ? convert({ anyOf: tuple }, context)
        : items !== undefined
        ? convert(items, context)
        : { type: "STRING" }
      if (isCount(own(node, "minItems"))) out.minItems = own(node, "minItems") as number
      if (isCount(own(node, "maxItems"))) out.maxItems = own(node, "maxItems") as number
      break
    }
    case "object": {
      const properties = own(node, "properties")
      if (isRecord(properties)) {
        const declared = Names.declaredNames(Object.keys(properties))
        if (declared.size > 0) {
          const converted: Record<string, GeminiSchema> = {}
          const renamed = new Map<string, string>()
          for (const [name, as] of declared) {
            define(converted, as, convert(properties[name], context))
            if (as !== name) renamed.set(as, name)
          }
          out.properties = converted
          Names.keepServerNames(converted, renamed)
          const required = [...new Set(stringArray(own(node, "required")))].flatMap((name) =>
            Object.hasOwn(properties, name) ? [declared.get(name)!] : []
          )
          if (required.length > 0) out.required = required
        }
      }
      if (isCount(own(node, "minProperties"))) out.minProperties = own(node, "minProperties") as number
      if (isCount(own(node, "maxProperties"))) out.maxProperties = own(node, "maxProperties") as number
      break
    }
  }
  return out
}

/** One node standing for the union of `branches`. */
const union = (node: JsonRecord, branches: ReadonlyArray<GeminiSchema>, nullable: boolean): GeminiSchema => {
  const nullableBranch = (branch: GeminiSchema): GeminiSchema => nullable ? { ...branch, nullable: true } : branch
  if (branches.length === 1) {
    const only = { ...branches[0] } as Mutable
    annotate(only, node)
    return nullableBranch(only)
  }
  if (branches.every((b) => b.type === "OBJECT")) {
    const properties: Record<string, GeminiSchema> = {}
    const renamed = new Map<string, string>()
    for (const branch of branches) {
      const declared = branch.properties ?? {}
      for (const [name, schema] of Object.entries(declared)) {
        if (!Object.hasOwn(properties, name)) {
          Object.defineProperty(properties, name, { value: schema, enumerable: true })
          const serverName = Names.serverNameOf(declared, name)
          if (serverName !== undefined) renamed.set(name, serverName)
        }
      }
    }
    Names.keepServerNames(properties, renamed)
    const required = (branches[0].required ?? []).filter((name) => branches.every((b) => b.required?.includes(name)))
    const out = annotate({ type: "OBJECT" }, node)
    if (Object.keys(properties).length > 0) out.properties = properties
    if (required.length > 0) out.required = required
    return nullableBranch(out)
  }
  if (branches.every((b) => b.type === "STRING" && b.enum !== undefined && b.anyOf === undefined)) {
    const out = annotate({ type: "STRING", enum: [...new Set(branches.flatMap((b) => b.enum ?? []))] }, node)
    return nullableBranch(out)
  }
  const out = annotate({ anyOf: branches.map(nullableBranch) }, node)
  return out
}

const shallow = (node: unknown): GeminiSchema => {
  if (!isRecord(node)) return anything(node, false)
  const { nullable, types } = typesOf(node)
  const type = types[0]
  const out: Mutable = annotate({}, node)
  if (type === "object") out.type = "OBJECT"
  else if (type === "array") Object.assign(out, { type: "ARRAY", items: { type: "STRING" } })
  else if (type !== undefined) out.type = geminiTypes[type]
  else out.type = "STRING"
  if (nullable) out.nullable = true
  return out
}

const convert = (input: unknown, parent: Context): GeminiSchema => {
  parent.budget.nodes += 1
  if (parent.depth >= maxDepth || parent.budget.nodes > maxNodes) return shallow(input)
  const context: Context = { ...parent, depth: parent.depth + 1 }
  if (!isRecord(input)) return anything(input, false)
  const ref = own(input, "$ref")
  if (typeof ref === "string") {
    const target = resolvePointer(context.root, ref)
    const rest = without(input, "$ref")
    if (context.refs.includes(ref)) return shallow(isRecord(target) ? merge([rest, target]) : rest)
    if (!isRecord(target)) return convert(rest, context)
    return convert(merge([rest, target]), { ...context, refs: [...context.refs, ref] })
  }
  const allOf = own(input, "allOf")
  if (Array.isArray(allOf)) {
    const branches = allOf.filter(isRecord).map((branch) => {
      const branchRef = own(branch, "$ref")
      if (typeof branchRef !== "string" || context.refs.includes(branchRef)) return without(branch, "$ref")
      const target = resolvePointer(context.root, branchRef)
      return isRecord(target) ? merge([without(branch, "$ref"), target]) : without(branch, "$ref")
    })
    return convert(merge([without(input, "allOf"), ...branches]), context)
  }
  const alternatives = own(input, "anyOf") ?? own(input, "oneOf")
  const rest = without(input, "anyOf", "oneOf")
  const { nullable, types } = typesOf(rest)
  if (Array.isArray(alternatives) && alternatives.length > 0 && types.length === 0) {
    const nullableUnion = nullable || alternatives.some(isNullSchema)
    const branches = alternatives.filter((branch) => !isNullSchema(branch)).map((branch) => convert(branch, context))
    if (branches.length === 0) return anything(rest, true)
    return union(rest, branches, nullableUnion)
  }
  // an enum of values of several kinds: a string whose enum is the string values, the others described
  if (types.length === 0 && (enumValues(rest)?.length ?? 0) > 0) {
    return typed(
      rest,
      "string",
      nullable || (own(rest, "enum") as Array<unknown> | undefined)?.includes(null) === true,
      context
    )
  }
  if (types.length === 0) return anything(rest, nullable)
  if (types.length === 1) return typed(rest, types[0], nullable, context)
  return union(
    without(rest, "description", "title"),
    types.map((type) => typed(rest, type, false, context)),
    nullable
  )
}

/**
 * The `parameters` of a Gemini function declaration, or `undefined` when the
 * tool takes no arguments (Gemini rejects an `OBJECT` without properties
 * there).
 *
 * @internal
 */
export const parameters = (schema: unknown): GeminiSchema | undefined => {
  const out = convert(schema, { root: schema, refs: [], depth: 0, budget: { nodes: 0 } })
  return out.type === "OBJECT" && out.properties !== undefined ? out : undefined
}

/**
 * Any JSON Schema as one Gemini schema node.
 *
 * @internal
 */
export const schema = (input: unknown): GeminiSchema =>
  convert(input, { root: input, refs: [], depth: 0, budget: { nodes: 0 } })
