/**
 * A `KeyValueStore` on IndexedDB, for browser data too large for
 * localStorage (call history, many servers). Strings and bytes are stored as
 * they are (structured clone); `get` of bytes decodes them as UTF-8 and
 * `getUint8Array` of a string encodes it, as the memory store does.
 *
 * Nothing is touched at import time; the database is opened when the Layer
 * is built and closed with its scope. Another tab upgrading the database is
 * never blocked by this one.
 *
 * The Layer is a `SharedStore` too (the call history and the hub's stored
 * servers use it): a record is the key `[collection, id]` in the same object
 * store, written in a transaction of its own, so tabs writing at once lose
 * nothing; each write is announced on a `BroadcastChannel`, so every tab
 * sees the others' changes live (milliseconds). `clear` and `size` see the
 * string keys only, not the records.
 *
 * @since 0.2.0
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/indexedDb.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The database name. Default `"mcp-effect"`. */
  readonly database?: string | undefined
  /** The object store inside it. Default `"kv"`. */
  readonly store?: string | undefined
  /** The factory to use. Default `globalThis.indexedDB`. */
  readonly factory?: IDBFactory | undefined
}

/**
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<KeyValueStore.KeyValueStore, PlatformError.PlatformError, Scope.Scope> =>
  Effect.map(internal.make(options), ({ kv }) => kv)

/**
 * The records of the store, per record, with the changes of every tab.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeShared = (
  options?: Options
): Effect.Effect<SharedStore.Service, PlatformError.PlatformError, Scope.Scope> =>
  Effect.map(internal.make(options), ({ shared }) => shared)

/**
 * The `KeyValueStore` and the `SharedStore` on one database.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<KeyValueStore.KeyValueStore | SharedStore.SharedStore, PlatformError.PlatformError> =>
  Layer.scopedContext(
    Effect.map(
      internal.make(options),
      ({ kv, shared }) => Context.make(internal.tag, kv).pipe(Context.add(SharedStore.SharedStore, shared))
    )
  )
