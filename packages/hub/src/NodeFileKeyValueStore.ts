/**
 * A `KeyValueStore` and a `SharedStore` on one directory, for one process
 * or several sharing it.
 *
 * - Keys: one file per key (percent-encoded), written to a temporary file
 *   and renamed over the old one, so a reader never sees half a value.
 *   Removing a key that is not there is not an error; keys `""`, `.` and
 *   `..` are refused.
 * - Shared records (`SharedStore`: the call history and the hub's stored
 *   servers): one file per record under `%records/<collection>/`, written
 *   the same way. Processes writing at once lose nothing (no file is
 *   read-modify-written), and each sees the others' changes live through
 *   `fs.watch` on the collection's directory: within milliseconds on a
 *   local disk (inotify, FSEvents); network file systems may not report
 *   them.
 * - Owner-only: the directory and its subdirectories are `0700`, files
 *   `0600`, and a directory that already exists with wider modes is
 *   narrowed when the Layer is built.
 *
 * `clear` and `size` see the keys only, not the shared records.
 *
 * @since 0.2.0
 */
import type * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Effect from "effect/Effect"
import * as internal from "./internal/fileStore.js"

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  directory: string
): Layer.Layer<KeyValueStore.KeyValueStore | SharedStore.SharedStore, PlatformError.PlatformError> =>
  Layer.effectContext(
    Effect.map(internal.make(directory), ({ kv, shared }) =>
      Context.make(KeyValueStore.KeyValueStore, kv).pipe(Context.add(SharedStore.SharedStore, shared)))
  )
