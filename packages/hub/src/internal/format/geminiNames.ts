/**
 * Gemini's parameter names. A property whose name Gemini refuses (`file-path`,
 * `2fa`) is declared under a name it takes (`file_path`, `_2fa`, with a
 * suffix when that name is taken by a sibling); a call's arguments get their
 * server's names back. `geminiSchema.ts` picks the names while it narrows a
 * schema; the server's names are kept here, by the declared `properties`
 * object that holds them (a copy of a node keeps its `properties`, so the
 * names follow it).
 *
 * @since 0.5.0
 */
import type { GeminiSchema } from "../../ToolFormat.js"
import { define, isRecord } from "./json.js"

/**
 * Gemini's rule for parameter names: a letter or an underscore, then letters,
 * digits or underscores, at most 64 in all
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/reference/java/latest/com.google.cloud.vertexai.api.FunctionDeclarationOrBuilder).
 */
const propertyName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/** The server's name of each property declared under another name, by the `properties` object that holds it. */
const serverNames = new WeakMap<object, ReadonlyMap<string, string>>()

/** A name Gemini takes for `name`, none of `taken`. */
const declaredName = (name: string, taken: ReadonlySet<string>): string => {
  const replaced = name.replace(/[^A-Za-z0-9_]/g, "_")
  const base = (/^[A-Za-z_]/.test(replaced) ? replaced : `_${replaced}`).slice(0, 64)
  let candidate = base
  for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, 63 - String(n).length)}_${n}`
  return candidate
}

/**
 * The names `names` are declared under, in order: the ones Gemini takes as
 * they are, the others renamed.
 *
 * @internal
 */
export const declaredNames = (names: ReadonlyArray<string>): ReadonlyMap<string, string> => {
  const taken = new Set(names.filter((name) => propertyName.test(name)))
  const declared = new Map<string, string>()
  for (const name of names) {
    if (propertyName.test(name)) {
      declared.set(name, name)
    } else {
      const renamed = declaredName(name, taken)
      taken.add(renamed)
      declared.set(name, renamed)
    }
  }
  return declared
}

/**
 * Keeps the server's names of the properties of `properties` declared under
 * another name (`renamed`: declared name to server name).
 *
 * @internal
 */
export const keepServerNames = (properties: object, renamed: ReadonlyMap<string, string>): void => {
  if (renamed.size > 0) serverNames.set(properties, renamed)
}

/**
 * The server's name of the property declared as `name` in `properties`, when
 * it was declared under another name.
 *
 * @internal
 */
export const serverNameOf = (properties: object, name: string): string | undefined =>
  serverNames.get(properties)?.get(name)

/** The branch of `node` that holds `value` best: the node itself, or one of its `anyOf`. */
const branchFor = (node: GeminiSchema, fits: (branch: GeminiSchema) => boolean): GeminiSchema | undefined =>
  fits(node) ? node : node.anyOf?.find(fits)

/**
 * `value`, an argument a model gave for `node` (a schema `geminiSchema.ts` made),
 * with every property declared under another name under its server's name
 * again, at any depth.
 *
 * @internal
 */
export const serverArguments = (node: GeminiSchema | undefined, value: unknown): unknown => {
  if (node === undefined) return value
  if (Array.isArray(value)) {
    const items = branchFor(node, (branch) => branch.items !== undefined)?.items
    return items === undefined ? value : value.map((item) => serverArguments(items, item))
  }
  if (!isRecord(value)) return value
  const keys = Object.keys(value)
  const branch = branchFor(
    node,
    (b) => b.properties !== undefined && keys.every((key) => Object.hasOwn(b.properties!, key))
  ) ?? branchFor(node, (b) => b.properties !== undefined)
  const properties = branch?.properties
  if (properties === undefined) return value
  const names = serverNames.get(properties)
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    define(
      out,
      names?.get(key) ?? key,
      serverArguments(Object.hasOwn(properties, key) ? properties[key] : undefined, value[key])
    )
  }
  return out
}
