import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { StoreFailure } from "./failure.js"
import type { Backend } from "./recordStore.js"

/** Records under `<prefix>:<kind>:<id>`. Storage exceptions (quota, privacy settings) become failures. */
export const backend = (storage: Storage, prefix: string): Backend => {
  const attempt = <A>(what: string, f: () => A) =>
    Effect.try({ try: f, catch: (cause) => new StoreFailure({ message: `${what} failed`, cause }) })
  return {
    get: (name) =>
      attempt(`reading the ${name.kind} record`, () => Option.fromNullable(storage.getItem(`${prefix}:${name.text}`))),
    set: (name, value) =>
      attempt(`writing the ${name.kind} record`, () => storage.setItem(`${prefix}:${name.text}`, value)),
    remove: (name) => attempt(`deleting the ${name.kind} record`, () => storage.removeItem(`${prefix}:${name.text}`))
  }
}
