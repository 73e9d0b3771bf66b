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
 * - Sealed server configs: the Layer also provides a `ConfigSealer`, so
 *   the servers a registry (`NodeHub`) stores here hold their secrets
 *   (tokens in `headers`, `env`, `auth`, a key in a URL's query) sealed
 *   with AES-256-GCM. Its key is `<directory>/%config.key` (`keyFile`),
 *   created owner-only on first use (`KeyFile.loadOrCreate` from
 *   `@mcp-effect/oauth`: processes starting together agree on one key).
 *   It protects copies of the records (a backup, a synced folder, a file
 *   pasted into a bug report), not an attacker who reads the whole
 *   directory as the same user. A `ConfigSealer` provided around the Layer
 *   (around the hub) wins: it is used, and no key file is made.
 *   `{ sealConfigs: false }` provides none (configs stored as given).
 *
 * `clear` and `size` see the keys only, not the shared records nor the key
 * file.
 *
 * @since 0.2.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as KeyFile from "@mcp-effect/oauth/KeyFile"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "node:path"
import * as ConfigSealer from "./ConfigSealer.js"
import * as internal from "./internal/fileStore.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /**
   * Provide a `ConfigSealer` keyed by `keyFile` (unless one is provided
   * around the Layer). Default `true`; `false` stores server configs as
   * given.
   */
  readonly sealConfigs?: boolean | undefined
}

/**
 * The name of the key file in the directory: no key of the store and no
 * shared record is stored under it.
 *
 * @since 0.3.0
 * @category constants
 */
export const keyFile: string = internal.keyFile

const stores = (directory: string) =>
  Effect.map(
    internal.make(directory),
    ({ kv, shared }) => Context.make(KeyValueStore.KeyValueStore, kv).pipe(Context.add(SharedStore.SharedStore, shared))
  )

/** A key file that cannot be read, made or used fails the Layer as the store's other file errors do. */
const keyFailure = (error: KeyFile.KeyFileError | ConfigSealer.ConfigSealError) =>
  new PlatformError.SystemError({
    reason: error._tag === "KeyFileError" && error.cause instanceof PlatformError.SystemError
      ? error.cause.reason
      : "Unknown",
    module: "KeyValueStore",
    method: "layer",
    pathOrDescriptor: keyFile,
    description: error.message,
    cause: error
  })

/**
 * The store on `directory`, with a `ConfigSealer` unless `sealConfigs` is
 * `false`. A key file that cannot be read or created (or holds no key) fails
 * the Layer with a `SystemError` naming it; its content is never quoted.
 *
 * @since 0.2.0
 * @category layers
 */
export function layer(directory: string, options: Options & { readonly sealConfigs: false }): Layer.Layer<
  KeyValueStore.KeyValueStore | SharedStore.SharedStore,
  PlatformError.PlatformError
>
export function layer(directory: string, options?: Options): Layer.Layer<
  KeyValueStore.KeyValueStore | SharedStore.SharedStore | ConfigSealer.ConfigSealer,
  PlatformError.PlatformError
>
export function layer(directory: string, options?: Options): Layer.Layer<
  KeyValueStore.KeyValueStore | SharedStore.SharedStore,
  PlatformError.PlatformError
> {
  if (options?.sealConfigs === false) return Layer.effectContext(stores(directory))
  return Layer.effectContext(Effect.gen(function*() {
    const context = yield* stores(directory)
    // the app's own sealer, provided around the store (or the hub), wins
    const given = yield* Effect.serviceOption(ConfigSealer.ConfigSealer)
    const sealer = Option.isSome(given) ? given.value : yield* KeyFile.loadOrCreate(Path.join(directory, keyFile)).pipe(
      Effect.provide(NodeFileSystem.layer),
      Effect.flatMap(ConfigSealer.make),
      Effect.mapError(keyFailure)
    )
    return Context.add(context, ConfigSealer.ConfigSealer, sealer)
  }))
}
