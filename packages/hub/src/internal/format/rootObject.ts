/**
 * The root of a tool's input schema as OpenAI and Anthropic take it: an
 * object schema with `properties` and without a top-level `anyOf`, `oneOf`
 * or `allOf` (both APIs reject those at the root, and OpenAI rejects an
 * object root without `properties`). Schemas that already fit are returned
 * unchanged (the same object).
 *
 * A root union is flattened into one object: `allOf` branches add their
 * properties and requirements; `anyOf` / `oneOf` branches add their
 * properties, and a property stays required only when every branch
 * requires it. Branches given as local `$ref`s are followed one level.
 * Every other root keyword (`$defs`, `description`, ...) is kept.
 *
 * @since 0.2.0
 */
import type { ObjectRoot } from "../../ToolFormat.js"
import { isRecord, type JsonRecord, own, resolvePointer, stringArray } from "./json.js"

const isObjectRoot = (schema: JsonRecord): schema is ObjectRoot => own(schema, "type") === "object"

const combinators = ["allOf", "anyOf", "oneOf"] as const

const branchesOf = (root: JsonRecord, key: string): ReadonlyArray<JsonRecord> => {
  const value = own(root, key)
  if (!Array.isArray(value)) return []
  return value.filter(isRecord).map((branch) => {
    const ref = own(branch, "$ref")
    const target = typeof ref === "string" ? resolvePointer(root, ref) : undefined
    return isRecord(target) ? { ...target, ...branch } : branch
  })
}

const define = (record: Record<string, unknown>, key: string, value: unknown): void => {
  if (!Object.hasOwn(record, key)) Object.defineProperty(record, key, { value, enumerable: true, writable: true })
}

/** @internal */
export const rootObject = (schema: JsonRecord): ObjectRoot => {
  const hasCombinator = combinators.some((key) => own(schema, key) !== undefined)
  if (!hasCombinator && isObjectRoot(schema) && isRecord(own(schema, "properties"))) return schema
  const properties: Record<string, unknown> = {}
  const ownProperties = own(schema, "properties")
  if (isRecord(ownProperties)) {
    for (const [name, value] of Object.entries(ownProperties)) define(properties, name, value)
  }
  const required = new Set(stringArray(own(schema, "required")))
  for (const branch of branchesOf(schema, "allOf")) {
    const branchProperties = own(branch, "properties")
    if (isRecord(branchProperties)) {
      for (const [name, value] of Object.entries(branchProperties)) define(properties, name, value)
    }
    for (const name of stringArray(own(branch, "required"))) required.add(name)
  }
  const alternatives = [...branchesOf(schema, "anyOf"), ...branchesOf(schema, "oneOf")]
  if (alternatives.length > 0) {
    for (const branch of alternatives) {
      const branchProperties = own(branch, "properties")
      if (isRecord(branchProperties)) {
        for (const [name, value] of Object.entries(branchProperties)) define(properties, name, value)
      }
    }
    const common = stringArray(own(alternatives[0], "required")).filter((name) =>
      alternatives.every((branch) => stringArray(own(branch, "required")).includes(name))
    )
    for (const name of common) required.add(name)
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (!(combinators as ReadonlyArray<string>).includes(key) && key !== "properties" && key !== "required") {
      define(out, key, value)
    }
  }
  const root = Object.assign(out, { type: "object" as const })
  root.properties = properties
  const names = [...required].filter((name) => Object.hasOwn(properties, name))
  if (names.length > 0) root.required = names
  return root
}
