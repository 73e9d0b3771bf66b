import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
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

/** Keys of the `KeyValueStore`: strings. Records of the `SharedStore` have array keys `[collection, id]`, which sort after every string. */
const keyValueKeys = () => IDBKeyRange.upperBound([], true)

const recordsOf = (collection: string) => IDBKeyRange.bound([collection], [collection, []])

/** @internal */
export const make = (
  options: IndexedDbKeyValueStore.Options = {}
): Effect.Effect<
  { readonly kv: KeyValueStore.KeyValueStore; readonly shared: SharedStore.Service },
  PlatformError.PlatformError,
  Scope.Scope
> =>
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
    const kv = KeyValueStore.make({
      get: (key) => Effect.map(read(key), Option.map((v) => typeof v === "string" ? v : decoder.decode(v))),
      getUint8Array: (key) => Effect.map(read(key), Option.map((v) => typeof v === "string" ? encoder.encode(v) : v)),
      set: (key, value) => Effect.asVoid(inTransaction(db, name, "readwrite", "set", (store) => store.put(value, key))),
      remove: (key) => Effect.asVoid(inTransaction(db, name, "readwrite", "remove", (store) => store.delete(key))),
      // the keys only: the shared records are collections of their own
      clear: Effect.asVoid(inTransaction(db, name, "readwrite", "clear", (store) => store.delete(keyValueKeys()))),
      size: inTransaction(db, name, "readonly", "size", (store) => store.count(keyValueKeys())),
      has: (key) => Effect.map(inTransaction(db, name, "readonly", "has", (store) => store.count(key)), (n) => n > 0)
    })
    const channelName = `mcp-effect/${options.database ?? "mcp-effect"}/${name}`
    const Channel = globalThis.BroadcastChannel
    // changes go to every other channel of this name: the subscriptions of this tab and of the others
    const sender = Channel === undefined ? undefined : yield* Effect.acquireRelease(
      Effect.sync(() => new Channel(channelName)),
      (channel) => Effect.sync(() => channel.close())
    )
    const announce = (collection: string, id: string) => Effect.sync(() => sender?.postMessage({ collection, id }))
    const shared: SharedStore.Service = {
      shared: sender !== undefined,
      collection: (collection) => ({
        get: (id) =>
          Effect.map(
            inTransaction(db, name, "readonly", "get", (store) => store.get([collection, id]) as IDBRequest<unknown>),
            (value) => typeof value === "string" ? Option.some(value) : Option.none()
          ),
        put: (id, value) =>
          Effect.zipRight(
            inTransaction(db, name, "readwrite", "put", (store) => store.put(value, [collection, id])),
            announce(collection, id)
          ),
        // the read and the write in one transaction: IndexedDB runs overlapping read-write transactions one at a time
        compareAndSet: (id, expected, value) =>
          Effect.suspend(() => {
            let wrote = false
            return inTransaction(db, name, "readwrite", "compareAndSet", (store) => {
              const current = store.get([collection, id]) as IDBRequest<unknown>
              current.onsuccess = () => {
                const now = typeof current.result === "string" ? Option.some(current.result) : Option.none()
                if (Option.getEquivalence(Equivalence.string)(now, expected)) {
                  store.put(value, [collection, id])
                  wrote = true
                }
              }
              return current
            }).pipe(
              Effect.zipRight(
                Effect.suspend(() => wrote ? Effect.as(announce(collection, id), true) : Effect.succeed(false))
              )
            )
          }),
        remove: (id) =>
          Effect.zipRight(
            inTransaction(db, name, "readwrite", "remove", (store) => store.delete([collection, id])),
            announce(collection, id)
          ),
        // keys and values read in one transaction, so that they match
        list: Effect.suspend(() => {
          let keys: IDBRequest<Array<IDBValidKey>> | undefined
          return Effect.map(
            inTransaction(db, name, "readonly", "list", (store) => {
              keys = store.getAllKeys(recordsOf(collection))
              return store.getAll(recordsOf(collection)) as IDBRequest<Array<unknown>>
            }),
            (values) =>
              (keys?.result ?? []).flatMap((key, i) => {
                const value = values[i]
                return Array.isArray(key) && typeof key[1] === "string" && typeof value === "string" ?
                  [[key[1], value] as const] :
                  []
              })
          )
        }),
        subscribe: Effect.gen(function*() {
          const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
          if (Channel !== undefined) {
            yield* Effect.acquireRelease(
              Effect.sync(() => {
                const channel = new Channel(channelName)
                channel.onmessage = (event: MessageEvent<unknown>) => {
                  const data = event.data as { readonly collection?: unknown; readonly id?: unknown } | null
                  if (data?.collection === collection && typeof data.id === "string") Queue.unsafeOffer(queue, data.id)
                }
                return channel
              }),
              (channel) => Effect.sync(() => channel.close())
            )
          }
          return Stream.fromQueue(queue)
        })
      })
    }
    return { kv, shared }
  })
