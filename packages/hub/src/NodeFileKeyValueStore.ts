/**
 * The Node file `KeyValueStore` (`@effect/platform-node`'s: one file per
 * key, keys percent-encoded) in an owner-only directory, with the contract
 * of the other backends: removing a key that is not there is not an error.
 * Keys `""`, `.` and `..` are refused by the underlying store.
 *
 * @since 0.2.0
 */
import * as NodeKeyValueStore from "@effect/platform-node/NodeKeyValueStore"
import type * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"

const tolerant = (store: KeyValueStore.KeyValueStore): KeyValueStore.KeyValueStore =>
  KeyValueStore.make({
    get: store.get,
    getUint8Array: store.getUint8Array,
    set: store.set,
    remove: (key) =>
      store.remove(key).pipe(Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.void)),
    clear: store.clear,
    size: store.size,
    has: store.has
  })

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (directory: string): Layer.Layer<KeyValueStore.KeyValueStore, PlatformError.PlatformError> =>
  Layer.effect(KeyValueStore.KeyValueStore, Effect.map(KeyValueStore.KeyValueStore, tolerant)).pipe(
    Layer.provide(NodeKeyValueStore.layerFileSystem(directory)),
    Layer.provide(Layer.effectDiscard(Effect.sync(() => Fs.mkdirSync(directory, { recursive: true, mode: 0o700 }))))
  )
