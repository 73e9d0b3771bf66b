/**
 * What a JSON Schema node says, read without trusting its shape: the JSON
 * types it allows (from `type`, or from its other keywords when it has
 * none), whether it allows `null` only, the values it enumerates, and
 * `allOf` parts (or a `$ref` and its target) merged into one node.
 * Provider-neutral: `geminiSchema.ts` narrows what it reads here.
 *
 * @since 0.5.0
 */
import { define, isRecord, type JsonRecord, own, stringArray } from "./json.js"

/** @internal */
export type JsonType = "string" | "number" | "integer" | "boolean" | "array" | "object"

const jsonTypes: ReadonlySet<unknown> = new Set(["string", "number", "integer", "boolean", "array", "object"])

const isJsonType = (u: unknown): u is JsonType => jsonTypes.has(u)

/** Whether the node allows `null` only. @internal */
export const isNullSchema = (u: unknown): boolean =>
  isRecord(u) &&
  (own(u, "type") === "null" || own(u, "const") === null ||
    (Array.isArray(own(u, "enum")) && (own(u, "enum") as Array<unknown>).every((v) => v === null)))

/** The JSON types a schema allows, from `type` or, when absent, from its keywords. @internal */
export const typesOf = (node: JsonRecord): { readonly types: ReadonlyArray<JsonType>; readonly nullable: boolean } => {
  const raw = own(node, "type")
  const listed = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : []
  const nullable = listed.includes("null") || own(node, "nullable") === true
  const types = [...new Set(listed.filter(isJsonType))]
  if (types.length > 0 || listed.length > 0) return { types, nullable }
  if (own(node, "properties") !== undefined || own(node, "additionalProperties") !== undefined) {
    return { types: ["object"], nullable }
  }
  if (own(node, "items") !== undefined || own(node, "prefixItems") !== undefined) return { types: ["array"], nullable }
  const values = Array.isArray(own(node, "enum"))
    ? own(node, "enum") as Array<unknown>
    : "const" in node
    ? [node.const]
    : []
  const kinds = new Set(values.filter((v) => v !== null).map((v) => typeof v))
  if (kinds.size === 1) {
    const kind = [...kinds][0]
    if (kind === "string" || kind === "number" || kind === "boolean") {
      return { types: [kind], nullable: nullable || values.includes(null) }
    }
  }
  if (own(node, "minLength") !== undefined || own(node, "pattern") !== undefined) return { types: ["string"], nullable }
  if (own(node, "minimum") !== undefined || own(node, "maximum") !== undefined) return { types: ["number"], nullable }
  return { types: [], nullable }
}

/** The values the node enumerates (`enum`, or `const`), `null` left out. @internal */
export const enumValues = (node: JsonRecord): ReadonlyArray<unknown> | undefined => {
  const values = own(node, "enum")
  if (Array.isArray(values)) return values.filter((v) => v !== null)
  return "const" in node && node.const !== null ? [node.const] : undefined
}

/**
 * `parts` as one node: the first value of each keyword, `properties`
 * together (the first schema of each name), `required` together.
 *
 * @internal
 */
export const merge = (parts: ReadonlyArray<JsonRecord>): JsonRecord => {
  const out: Record<string, unknown> = {}
  const properties: Record<string, unknown> = {}
  const required: Array<string> = []
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties") {
        // a `properties` that is not an object (an array, say) declares nothing
        if (!isRecord(value)) continue
        for (const [name, schema] of Object.entries(value)) {
          if (!Object.hasOwn(properties, name)) define(properties, name, schema)
        }
      } else if (key === "required") {
        for (const name of stringArray(value)) required.push(name)
      } else if (!Object.hasOwn(out, key)) {
        define(out, key, value)
      }
    }
  }
  if (Object.keys(properties).length > 0) out.properties = properties
  if (required.length > 0) out.required = required
  return out
}

/** The node without `keys`. @internal */
export const without = (node: JsonRecord, ...keys: ReadonlyArray<string>): JsonRecord =>
  Object.fromEntries(Object.entries(node).filter(([key]) => !keys.includes(key)))
