import type * as PlatformError from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { StoreFailure } from "./failure.js"

/** Permission bits for the store's directory and files: the owner only. */
export const directoryMode = 0o700
export const fileMode = 0o600

export const isNotFound = (error: PlatformError.PlatformError): boolean =>
  error._tag === "SystemError" && error.reason === "NotFound"

export const failure = (message: string) => (cause: PlatformError.PlatformError): StoreFailure =>
  new StoreFailure({ message, cause })

/** Reads a file as text, none when it does not exist. */
export const readIfExists = (
  fs: FileSystem.FileSystem,
  path: string,
  what: string
): Effect.Effect<Option.Option<string>, StoreFailure> =>
  fs.readFileString(path).pipe(
    Effect.map(Option.some),
    Effect.catchIf(isNotFound, () => Effect.succeedNone),
    Effect.mapError(failure(`reading ${what} failed`))
  )

/**
 * Creates the directory (and its parents) owner-only, or tightens an existing
 * one that others can read or enter.
 */
export const ensurePrivateDirectory = (
  fs: FileSystem.FileSystem,
  directory: string
): Effect.Effect<void, StoreFailure> =>
  Effect.gen(function*() {
    yield* fs.makeDirectory(directory, { recursive: true, mode: directoryMode })
    const info = yield* fs.stat(directory)
    if (info.type !== "Directory") {
      return yield* Effect.fail(new StoreFailure({ message: "the token store path is not a directory" }))
    }
    if ((info.mode & 0o077) !== 0) yield* fs.chmod(directory, directoryMode)
  }).pipe(Effect.mapError((error) =>
    error._tag === "StoreFailure" ? error : failure("preparing the token store directory failed")(error)
  ))

/** Tightens an existing file that others can read or write. */
export const ensurePrivateFile = (
  fs: FileSystem.FileSystem,
  path: string
): Effect.Effect<void, PlatformError.PlatformError> =>
  Effect.flatMap(fs.stat(path), (info) => (info.mode & 0o077) !== 0 ? fs.chmod(path, fileMode) : Effect.void)

/**
 * Writes `temporary` owner-only, with exclusive creation, and flushes it to
 * disk, so that a later rename or link publishes complete content only.
 */
export const writePrivateFile = (
  fs: FileSystem.FileSystem,
  temporary: string,
  content: string
): Effect.Effect<void, PlatformError.PlatformError> =>
  Effect.scoped(
    Effect.flatMap(fs.open(temporary, { flag: "wx", mode: fileMode }), (file) =>
      Effect.zipRight(file.writeAll(new TextEncoder().encode(content)), file.sync))
  )
