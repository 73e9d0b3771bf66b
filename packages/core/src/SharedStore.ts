/**
 * State that several processes share, kept per record: collections of
 * records, each written and removed on its own with an atomic operation of
 * the backend, and a stream of the records that changed, in this process
 * or another. Nothing is read-modify-written, so two processes writing at
 * once lose nothing, whatever the interleaving.
 *
 * The call history (`ToolCallLog`) and the hub's stored servers use a
 * `SharedStore` when one is in their context, and otherwise one made over
 * the `KeyValueStore` they are given (`fromKeyValueStore`: right within one
 * process, not shared live with others). The hub's Node file and IndexedDB
 * stores and the Redis store provide both services from one Layer:
 *
 * | backend | a record is | changes from other processes |
 * |---|---|---|
 * | `layerMemory`, `fromKeyValueStore` | a key (plus an index key) | none (this process only) |
 * | `NodeFileKeyValueStore` (hub) | a file, written to a temporary file and renamed (`compareAndSet` under a lock file per record) | `fs.watch` on the collection's directory, well under a second |
 * | `RedisKeyValueStore` (kv-redis) | a key, its id in a set, one `MULTI` (`compareAndSet`: one Lua script) | Redis pub/sub, a few milliseconds; after a dropped connection, every record that may have changed is reported again |
 * | `IndexedDbKeyValueStore` (hub) | the key `[collection, id]`, one transaction | `BroadcastChannel` (other tabs), milliseconds |
 *
 * @since 0.2.0
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as internal from "./internal/policy/sharedStore.js"

/**
 * The records of one collection, by id. Values are strings (the services
 * store schema-encoded JSON).
 *
 * @since 0.2.0
 * @category models
 */
export interface Collection {
  readonly get: (id: string) => Effect.Effect<Option.Option<string>, PlatformError.PlatformError>
  /** Writes one record, atomically: a reader sees the old value or the new one. */
  readonly put: (id: string, value: string) => Effect.Effect<void, PlatformError.PlatformError>
  /**
   * Writes one record only if it is now `expected` (`Option.none()`: only if
   * there is none), as one atomic step of the backend: of several processes
   * that read the same record and try to replace it, exactly one succeeds.
   * Succeeds with whether it wrote. A continuation answered from two
   * processes at once, or a task cancelled from two, is settled this way.
   */
  readonly compareAndSet: (
    id: string,
    expected: Option.Option<string>,
    value: string
  ) => Effect.Effect<boolean, PlatformError.PlatformError>
  /** Removes one record; removing a record that is not there is not an error. */
  readonly remove: (id: string) => Effect.Effect<void, PlatformError.PlatformError>
  /** Every record, by id in ascending (code unit) order. */
  readonly list: Effect.Effect<ReadonlyArray<readonly [id: string, value: string]>, PlatformError.PlatformError>
  /**
   * Subscribes now, for as long as the scope is open: the stream holds the
   * ids of records put or removed from then on, by this process or (on a
   * shared backend) another one. Read the record to know which: a change
   * may be reported more than once, never not at all.
   */
  readonly subscribe: Effect.Effect<Stream.Stream<string>, PlatformError.PlatformError, Scope.Scope>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** A collection by name; the same name gives the same records in every process sharing the backend. */
  readonly collection: (name: string) => Collection
  /** Whether other processes sharing the backend see the changes live. */
  readonly shared: boolean
}

/**
 * @since 0.2.0
 * @category tags
 */
export class SharedStore extends Context.Tag("@mcp-effect/core/SharedStore")<SharedStore, Service>() {}

/**
 * A store over any `KeyValueStore`: a record is the key
 * `<collection>/<id, percent-encoded>`, and the collection's ids are an
 * index key `<collection>#index` changed under a lock of this process.
 * Right within one process (every service made over one `KeyValueStore`
 * shares the lock and the changes); processes sharing the backing store
 * can lose index entries, and see no changes live: use a backend with a
 * `SharedStore` of its own for that.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromKeyValueStore: (store: KeyValueStore.KeyValueStore) => Service = internal.fromKeyValueStore

/**
 * The `SharedStore` in the context, or else one over the context's
 * `KeyValueStore` (`fromKeyValueStore`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromContext: Effect.Effect<Service, never, KeyValueStore.KeyValueStore> = internal.fromContext

/**
 * A store in memory, for tests and single-process apps.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<SharedStore> = Layer.sync(SharedStore, internal.memory)

/**
 * A `SharedStore` over the `KeyValueStore` of the context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerKeyValueStore: Layer.Layer<SharedStore, never, KeyValueStore.KeyValueStore> = Layer.effect(
  SharedStore,
  internal.fromContext
)
