import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { StoreFailure } from "./failure.js"
import type { Backend } from "./recordStore.js"
import * as Sealer from "./sealer.js"

const RECORDS = "records"
const KEYS = "keys"
const KEY_ENTRY = "aes-gcm"

interface StoredKey {
  readonly key: CryptoKey
  readonly keyId: string
}

const isStoredKey = (u: unknown): u is StoredKey =>
  typeof u === "object" && u !== null && "key" in u && u.key instanceof CryptoKey && "keyId" in u &&
  typeof u.keyId === "string"

const request = <A>(what: string, make: () => IDBRequest<A>): Effect.Effect<A, StoreFailure> =>
  Effect.async<A, StoreFailure>((resume) => {
    try {
      const req = make()
      req.onsuccess = () => resume(Effect.succeed(req.result))
      req.onerror = () => resume(Effect.fail(new StoreFailure({ message: `${what} failed`, cause: req.error })))
    } catch (cause) {
      resume(Effect.fail(new StoreFailure({ message: `${what} failed`, cause })))
    }
  })

/** Runs `body` in a read-write transaction and succeeds once it has committed. */
const commit = (db: IDBDatabase, store: string, what: string, body: (store: IDBObjectStore) => void) =>
  Effect.async<void, StoreFailure>((resume) => {
    try {
      const tx = db.transaction(store, "readwrite")
      tx.oncomplete = () => resume(Effect.void)
      tx.onerror = () => resume(Effect.fail(new StoreFailure({ message: `${what} failed`, cause: tx.error })))
      tx.onabort = () => resume(Effect.fail(new StoreFailure({ message: `${what} was aborted`, cause: tx.error })))
      body(tx.objectStore(store))
    } catch (cause) {
      resume(Effect.fail(new StoreFailure({ message: `${what} failed`, cause })))
    }
  })

/** Opens (creating if needed) the database; it is closed with the scope. */
export const open = (factory: IDBFactory, name: string): Effect.Effect<IDBDatabase, StoreFailure, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<IDBDatabase, StoreFailure>((resume) => {
      try {
        const req = factory.open(name, 1)
        req.onupgradeneeded = () => {
          req.result.createObjectStore(RECORDS)
          req.result.createObjectStore(KEYS)
        }
        req.onsuccess = () => {
          // Another tab upgrading the schema must not be blocked by this one.
          req.result.onversionchange = () => req.result.close()
          resume(Effect.succeed(req.result))
        }
        req.onerror = () =>
          resume(Effect.fail(new StoreFailure({ message: "opening IndexedDB failed", cause: req.error })))
      } catch (cause) {
        resume(Effect.fail(new StoreFailure({ message: "opening IndexedDB failed", cause })))
      }
    }),
    (db) => Effect.sync(() => db.close())
  )

/**
 * The store's CryptoKey, kept in IndexedDB by structured clone (the key
 * material never leaves WebCrypto). A new key is generated first and only
 * added if, inside one transaction, there still is none: two tabs starting
 * together agree on one key.
 */
export const loadOrCreateKey = (db: IDBDatabase): Effect.Effect<StoredKey, StoreFailure> => {
  const existing = request("reading the encryption key", () => db.transaction(KEYS).objectStore(KEYS).get(KEY_ENTRY))
  const checked = (u: unknown) =>
    u === undefined
      ? Effect.succeedNone
      : isStoredKey(u)
      ? Effect.succeedSome(u)
      : Effect.fail(new StoreFailure({ message: "the stored encryption key is corrupt" }))
  return Effect.flatMap(
    Effect.flatMap(existing, checked),
    Option.match({
      onSome: Effect.succeed,
      onNone: () =>
        Effect.flatMap(Sealer.generateKey, (fresh) => {
          let chosen: StoredKey = fresh
          return commit(db, KEYS, "storing the encryption key", (store) => {
            const get = store.get(KEY_ENTRY)
            get.onsuccess = () => {
              if (isStoredKey(get.result)) chosen = get.result
              else store.put(fresh, KEY_ENTRY)
            }
          }).pipe(Effect.map(() => chosen))
        })
    })
  )
}

export const backend = (db: IDBDatabase): Backend => ({
  get: (name) =>
    Effect.flatMap(
      request(`reading the ${name.kind} record`, () => db.transaction(RECORDS).objectStore(RECORDS).get(name.text)),
      (value: unknown) =>
        value === undefined
          ? Effect.succeedNone
          : typeof value === "string"
          ? Effect.succeedSome(value)
          : Effect.fail(new StoreFailure({ message: `the stored ${name.kind} record is corrupt` }))
    ),
  set: (name, value) =>
    commit(db, RECORDS, `writing the ${name.kind} record`, (store) => void store.put(value, name.text)),
  remove: (name) => commit(db, RECORDS, `deleting the ${name.kind} record`, (store) => void store.delete(name.text))
})
