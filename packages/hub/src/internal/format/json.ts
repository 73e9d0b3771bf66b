/**
 * Reading untrusted JSON (tool schemas as servers sent them) without
 * trusting its shape.
 *
 * @since 0.2.0
 */

/** @internal */
export type JsonRecord = { readonly [key: string]: unknown }

/** @internal */
export const isRecord = (u: unknown): u is JsonRecord => typeof u === "object" && u !== null && !Array.isArray(u)

/** An own property only (never one from the prototype chain). @internal */
export const own = (record: JsonRecord, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined

/** @internal */
export const isFiniteNumber = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)

/** @internal */
export const isCount = (u: unknown): u is number => isFiniteNumber(u) && Number.isInteger(u) && u >= 0

/** @internal */
export const stringArray = (u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : []

/** Follows a local JSON pointer (`#`, `#/$defs/x`, `#/properties/a~1b`) from `root`. @internal */
export const resolvePointer = (root: unknown, ref: string): unknown => {
  if (ref === "#") return root
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    let segment: string
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~")
    } catch {
      return undefined
    }
    if (Array.isArray(node)) {
      const index = Number(segment)
      node = Number.isInteger(index) ? node[index] : undefined
    } else if (isRecord(node)) {
      node = own(node, segment)
    } else {
      return undefined
    }
  }
  return node
}

/** Sets an own, ordinary property, even for names like `__proto__`. @internal */
export const define = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
