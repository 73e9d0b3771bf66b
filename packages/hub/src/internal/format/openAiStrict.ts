/**
 * OpenAI strict mode (Structured Outputs for function calling): a schema is
 * used with `strict: true` only when it already fits the rules, so that the
 * model's arguments are always valid for the MCP server too.
 *
 * The rule, checked on every schema node:
 * - the root is an object schema (no root `anyOf`);
 * - every object schema declares `properties` (possibly empty), lists every
 *   property in `required`, and has `additionalProperties: false` or none at
 *   all (an absent one is filled in as `false`: that only narrows what the
 *   model may send);
 * - only keywords OpenAI supports appear: `type` (one or several JSON types),
 *   `properties`, `required`, `additionalProperties`, `items` (one schema),
 *   `enum`, `const`, `anyOf`, local `$ref` with `$defs` / `definitions`,
 *   `description`, `title`, `pattern`, `format` (date-time, time, date,
 *   duration, email, hostname, ipv4, ipv6, uuid), `multipleOf`, `minimum`,
 *   `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minItems`, `maxItems`;
 * - pure annotations (`$schema`, `$id`, `$comment`, `default`, `examples`,
 *   `deprecated`, `readOnly`, `writeOnly`) are dropped, as they never change
 *   which arguments are valid;
 * - every schema has a `type` (or is an `anyOf` or a `$ref`): a property
 *   schema without one (`{}`, `{ "description": ... }`) is refused in strict
 *   mode;
 * - at most 10 levels of nesting, 5000 properties and 1000 enum values.
 *
 * Source: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 *
 * Optional properties are never turned into required ones: a model forced to
 * fill them would invent values the tool did not ask for.
 *
 * @since 0.2.0
 */
import { isRecord, type JsonRecord, own } from "./json.js"

const annotations = new Set([
  "$schema",
  "$id",
  "$comment",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly"
])
const plain = new Set([
  "description",
  "title",
  "pattern",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "const"
])
const formats = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"])
const types = new Set(["object", "array", "string", "number", "integer", "boolean", "null"])

const maxDepth = 10
const maxProperties = 5000
const maxEnumValues = 1000

class NotStrict {}

interface Budget {
  properties: number
  enumValues: number
}

const isObjectSchema = (node: JsonRecord): boolean => {
  const type = own(node, "type")
  return type === "object" || (Array.isArray(type) && type.includes("object")) || own(node, "properties") !== undefined
}

const check = (node: unknown, depth: number, budget: Budget): JsonRecord => {
  if (!isRecord(node) || depth > maxDepth) throw new NotStrict()
  const out: Array<[string, unknown]> = []
  for (const [key, value] of Object.entries(node)) {
    if (annotations.has(key)) continue
    if (plain.has(key)) {
      out.push([key, value])
    } else if (key === "type") {
      const list = Array.isArray(value) ? value : [value]
      if (list.length === 0 || !list.every((t) => typeof t === "string" && types.has(t))) throw new NotStrict()
      out.push([key, value])
    } else if (key === "format") {
      if (typeof value !== "string" || !formats.has(value)) throw new NotStrict()
      out.push([key, value])
    } else if (key === "enum") {
      if (!Array.isArray(value) || value.length === 0) throw new NotStrict()
      budget.enumValues += value.length
      out.push([key, value])
    } else if (key === "$ref") {
      if (typeof value !== "string" || !value.startsWith("#")) throw new NotStrict()
      out.push([key, value])
    } else if (key === "$defs" || key === "definitions") {
      if (!isRecord(value)) throw new NotStrict()
      out.push([key, Object.fromEntries(Object.entries(value).map(([k, v]) => [k, check(v, depth + 1, budget)]))])
    } else if (key === "items") {
      out.push([key, check(value, depth + 1, budget)])
    } else if (key === "anyOf") {
      if (!Array.isArray(value) || value.length === 0) throw new NotStrict()
      out.push([key, value.map((branch) => check(branch, depth + 1, budget))])
    } else if (key === "properties") {
      if (!isRecord(value)) throw new NotStrict()
      const entries = Object.entries(value)
      budget.properties += entries.length
      out.push([key, Object.fromEntries(entries.map(([k, v]) => [k, check(v, depth + 1, budget)]))])
    } else if (key === "required") {
      out.push([key, value])
    } else if (key === "additionalProperties") {
      if (value !== false) throw new NotStrict()
      out.push([key, value])
    } else {
      throw new NotStrict()
    }
  }
  if (budget.properties > maxProperties || budget.enumValues > maxEnumValues) throw new NotStrict()
  // every schema says what it is: a `type`, or an `anyOf` / `$ref` to schemas that do
  if (own(node, "type") === undefined && own(node, "anyOf") === undefined && own(node, "$ref") === undefined) {
    throw new NotStrict()
  }
  if (isObjectSchema(node)) {
    const properties = own(node, "properties")
    if (!isRecord(properties)) throw new NotStrict()
    const required = own(node, "required") ?? []
    if (!Array.isArray(required)) throw new NotStrict()
    const names = Object.keys(properties)
    if (required.length !== names.length || !names.every((name) => required.includes(name))) throw new NotStrict()
    if (own(node, "additionalProperties") === undefined) out.push(["additionalProperties", false])
    if (own(node, "required") === undefined) out.push(["required", []])
  } else if (own(node, "required") !== undefined || own(node, "additionalProperties") !== undefined) {
    throw new NotStrict()
  }
  return Object.fromEntries(out)
}

/**
 * The schema to send with `strict: true`, or `undefined` when strict mode
 * would change the tool's meaning.
 *
 * @internal
 */
export const strictSchema = (schema: unknown): JsonRecord | undefined => {
  if (!isRecord(schema) || own(schema, "type") !== "object" || own(schema, "anyOf") !== undefined) return undefined
  try {
    return check(schema, 0, { properties: 0, enumValues: 0 })
  } catch (error) {
    if (error instanceof NotStrict) return undefined
    throw error
  }
}
