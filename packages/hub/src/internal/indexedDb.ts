import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as IndexedDbKeyValueStore from "../IndexedDbKeyValueStore.js"

/** @internal */
export const tag = KeyValueStore.KeyValueStore

const failure = (method: string, cause: unknown) =>
  new PlatformError.SystemError({
    reason: "Unknown",
    module: "KeyValueStore",
    method,
    description: "IndexedDB request failed",
    cause
  })

/** Runs one request in its own transaction and succeeds once a write has committed. */
const inTransaction = <A>(
  db: IDBDatabase,
  name: string,
  mode: IDBTransactionMode,
  method: string,
  make: (store: IDBObjectStore) => IDBRequest<A>
): Effect.Effect<A, PlatformError.PlatformError> =>
  Effect.async<A, PlatformError.PlatformError>((resume) => {
    try {
      const tx = db.transaction(name, mode)
      const req = make(tx.objectStore(name))
      tx.oncomplete = () => resume(Effect.succeed(req.result))
      tx.onerror = () => resume(Effect.fail(failure(method, tx.error ?? req.error)))
      tx.onabort = () => resume(Effect.fail(failure(method, tx.error)))
    } catch (cause) {
      resume(Effect.fail(failure(method, cause)))
    }
  })

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** @internal */
export const make = (
  options: IndexedDbKeyValueStore.Options = {}
): Effect.Effect<KeyValueStore.KeyValueStore, PlatformError.PlatformError, Scope.Scope> =>
  Effect.gen(function*() {
    const name = options.store ?? "kv"
    const factory = options.factory ?? globalThis.indexedDB
    if (factory === undefined) {
      return yield* new PlatformError.BadArgument({
        module: "KeyValueStore",
        method: "make",
        description: "IndexedDB is unavailable here"
      })
    }
    const db = yield* Effect.acquireRelease(
      Effect.async<IDBDatabase, PlatformError.PlatformError>((resume) => {
        try {
          const req = factory.open(options.database ?? "mcp-effect", 1)
          req.onupgradeneeded = () => void req.result.createObjectStore(name)
          req.onsuccess = () => {
            req.result.onversionchange = () => req.result.close()
            resume(Effect.succeed(req.result))
          }
          req.onerror = () => resume(Effect.fail(failure("open", req.error)))
        } catch (cause) {
          resume(Effect.fail(failure("open", cause)))
        }
      }),
      (db) => Effect.sync(() => db.close())
    )
    const read = (key: string) =>
      Effect.map(
        inTransaction(db, name, "readonly", "get", (store) => store.get(key) as IDBRequest<unknown>),
        (value): Option.Option<string | Uint8Array> =>
          typeof value === "string" || value instanceof Uint8Array ? Option.some(value) : Option.none()
      )
    return KeyValueStore.make({
      get: (key) => Effect.map(read(key), Option.map((v) => typeof v === "string" ? v : decoder.decode(v))),
      getUint8Array: (key) => Effect.map(read(key), Option.map((v) => typeof v === "string" ? encoder.encode(v) : v)),
      set: (key, value) => Effect.asVoid(inTransaction(db, name, "readwrite", "set", (store) => store.put(value, key))),
      remove: (key) => Effect.asVoid(inTransaction(db, name, "readwrite", "remove", (store) => store.delete(key))),
      clear: Effect.asVoid(inTransaction(db, name, "readwrite", "clear", (store) => store.clear())),
      size: inTransaction(db, name, "readonly", "size", (store) => store.count()),
      has: (key) => Effect.map(inTransaction(db, name, "readonly", "has", (store) => store.count(key)), (n) => n > 0)
    })
  })
