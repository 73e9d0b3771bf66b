/**
 * The request metadata headers of Streamable HTTP in the 2026-07-28 revision:
 * `Mcp-Method` / `Mcp-Name` mirrored from the body, and `Mcp-Param-{Name}`
 * from tool arguments whose schema carries an `x-mcp-header` annotation.
 * Pure functions; the HTTP transport puts the result on each POST.
 */

/** @internal */
export type ParamType = "string" | "integer" | "boolean"

/** @internal */
export interface ParamHeader {
  /** the `x-mcp-header` value: the header is `Mcp-Param-{name}` */
  readonly name: string
  /** the chain of `properties` keys from the schema root to the annotated property */
  readonly path: ReadonlyArray<string>
  readonly types: ReadonlyArray<ParamType>
}

/** @internal */
export type Declarations =
  | { readonly _tag: "Valid"; readonly headers: ReadonlyArray<ParamHeader> }
  | { readonly _tag: "Invalid"; readonly reason: string }

const annotation = "x-mcp-header"

// RFC 9110 tchar: the characters of a header field name
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

// values of these keywords are maps of schemas
const schemaMaps = ["$defs", "definitions", "patternProperties", "dependentSchemas"]
// values of these keywords are schemas or arrays of schemas
const schemaValues = [
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "contentSchema"
]

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const describePath = (path: ReadonlyArray<string>): string => path.length === 0 ? "the root" : path.join(".")

/** `undefined` when the annotated property's type is a primitive the header can carry */
const typesOf = (schema: Readonly<Record<string, unknown>>): ReadonlyArray<ParamType> | string => {
  const type = schema.type
  const listed = typeof type === "string" ? [type] : Array.isArray(type) ? type : []
  const kept: Array<ParamType> = []
  for (const t of listed) {
    if (t === "string" || t === "integer" || t === "boolean") kept.push(t)
    else if (t !== "null") return `its type ${JSON.stringify(type)} is not string, integer or boolean`
  }
  return kept.length === 0 ? `its type ${JSON.stringify(type ?? null)} is not string, integer or boolean` : kept
}

/**
 * Reads the `x-mcp-header` annotations of a tool's `inputSchema`. The tool
 * is invalid when any annotation is empty, not a header token, repeated
 * (case-insensitively), on a non-primitive property, or anywhere but at the
 * end of a chain of `properties` keys from the root.
 *
 * @internal
 */
export const declarations = (inputSchema: unknown): Declarations => {
  const headers: Array<ParamHeader> = []
  const seen = new Map<string, string>()
  let invalid: string | undefined

  // `reachable`: the node is the root or reached from it through `properties` keys only
  const visit = (node: unknown, path: ReadonlyArray<string>, reachable: boolean): void => {
    if (invalid !== undefined) return
    if (Array.isArray(node)) {
      for (const item of node) visit(item, path, false)
      return
    }
    if (!isObject(node)) return
    if (Object.hasOwn(node, annotation)) {
      const name = node[annotation]
      const where = describePath(path)
      if (!reachable || path.length === 0) {
        invalid = `x-mcp-header at ${where} is not on a property reached through "properties" only`
        return
      }
      if (typeof name !== "string" || name === "") {
        invalid = `x-mcp-header of ${where} is empty or not a string`
        return
      }
      if (!token.test(name)) {
        invalid = `x-mcp-header ${JSON.stringify(name)} of ${where} is not a valid header name`
        return
      }
      const other = seen.get(name.toLowerCase())
      if (other !== undefined) {
        invalid = `x-mcp-header ${JSON.stringify(name)} of ${where} repeats the one of ${other}`
        return
      }
      const types = typesOf(node)
      if (typeof types === "string") {
        invalid = `x-mcp-header ${JSON.stringify(name)} of ${where}: ${types}`
        return
      }
      seen.set(name.toLowerCase(), where)
      headers.push({ name, path, types })
    }
    const properties = node.properties
    if (isObject(properties)) {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key], reachable)
    }
    for (const keyword of schemaMaps) {
      const map = node[keyword]
      if (isObject(map)) { for (const child of Object.values(map)) visit(child, path, false) }
    }
    for (const keyword of schemaValues) {
      if (Object.hasOwn(node, keyword)) visit(node[keyword], path, false)
    }
  }
  visit(inputSchema, [], true)
  return invalid === undefined ? { _tag: "Valid", headers } : { _tag: "Invalid", reason: invalid }
}

const sentinel = /^=\?base64\?.*\?=$/s

/** visible ASCII, space and tab, no surrounding whitespace, not the sentinel itself */
const isPlain = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return false
  }
  return value === value.trim() && !sentinel.test(value)
}

const base64 = (value: string): string => {
  const bytes = new TextEncoder().encode(value)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * A header value for `value`: as is when it is plain visible ASCII,
 * otherwise `=?base64?{UTF-8 bytes in Base64}?=`.
 *
 * @internal
 */
export const encodeValue = (value: string): string => isPlain(value) ? value : `=?base64?${base64(value)}?=`

/** the text of an argument for a header, `undefined` when it has none */
const textOf = (value: unknown, types: ReadonlyArray<ParamType>): string | undefined => {
  if (typeof value === "string") return types.includes("string") ? value : undefined
  if (typeof value === "boolean") return types.includes("boolean") ? String(value) : undefined
  if (typeof value === "number") {
    return types.includes("integer") && Number.isSafeInteger(value) ? String(value) : undefined
  }
  return undefined
}

/**
 * The `Mcp-Param-*` headers (lower-case names) of a call's arguments: one per
 * declaration whose value is present (not `null`) at its path.
 *
 * @internal
 */
export const paramHeaders = (
  headers: ReadonlyArray<ParamHeader>,
  args: unknown
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const header of headers) {
    let value: unknown = args
    for (const key of header.path) value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined
    const text = textOf(value, header.types)
    if (text !== undefined) out[`mcp-param-${header.name.toLowerCase()}`] = encodeValue(text)
  }
  return out
}

// the tasks rows come from the tasks extension's HTTP binding (SEP-2663)
const namedBy: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId"
}

/**
 * `Mcp-Method` for every message with a method, and `Mcp-Name` for
 * `tools/call`, `prompts/get` (`params.name`), `resources/read`
 * (`params.uri`) and `tasks/get` / `tasks/update` / `tasks/cancel`
 * (`params.taskId`). Lower-case names.
 *
 * @internal
 */
export const standardHeaders = (method: string, params: unknown): Record<string, string> => {
  const out: Record<string, string> = { "mcp-method": method }
  const field = Object.hasOwn(namedBy, method) ? namedBy[method] : undefined
  const name = field === undefined || !isObject(params) ? undefined : params[field]
  if (typeof name === "string") out["mcp-name"] = encodeValue(name)
  return out
}
