import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { RecordName } from "./records.js"
import type { Backend } from "./recordStore.js"
import * as Sealer from "./sealer.js"

/**
 * For backends whose keys anyone with the storage can list (IndexedDB,
 * localStorage): a record is kept under `<kind>:<sha256 hex of its name>`,
 * because names hold server and issuer URLs, and a server URL can carry a
 * key. The record's sealing still binds the full name.
 *
 * A record an earlier version kept under its plain name is still found on
 * read and moved under the hashed key; writes and deletes remove the plain
 * one too.
 */
export const hashed = (backend: Backend): Backend => {
  const hashedName = (name: RecordName) =>
    Effect.map(Sealer.sha256Hex(name.text), (hash) => ({ kind: name.kind, text: `${name.kind}:${hash}` }))
  return {
    get: (name) =>
      Effect.flatMap(
        hashedName(name),
        (stored) =>
          Effect.flatMap(backend.get(stored), (found) =>
            Option.isSome(found) ?
              Effect.succeed(found) :
              Effect.flatMap(backend.get(name), (legacy) =>
                Option.match(legacy, {
                  onNone: () => Effect.succeed(legacy),
                  // moved under the hashed key; the sealing binds the name, not the key
                  onSome: (value) =>
                    backend.set(stored, value).pipe(Effect.zipRight(backend.remove(name)), Effect.as(legacy))
                })))
      ),
    set: (name, value) =>
      Effect.flatMap(hashedName(name), (stored) => Effect.zipRight(backend.set(stored, value), backend.remove(name))),
    remove: (name) =>
      Effect.flatMap(hashedName(name), (stored) => Effect.zipRight(backend.remove(stored), backend.remove(name)))
  }
}
