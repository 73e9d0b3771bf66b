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
 * @since 0.2.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as PlatformError from "@effect/platform/Error"
import type * as Effect from "effect/Effect"
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
export const make: (
  options?: Options
) => Effect.Effect<KeyValueStore.KeyValueStore, PlatformError.PlatformError, Scope.Scope> = internal.make

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<KeyValueStore.KeyValueStore, PlatformError.PlatformError> =>
  Layer.scoped(internal.tag, internal.make(options))
