/**
 * A 32-byte key kept in an owner-only file: the one `NodeTokenStore` seals
 * its records with (`<directory>/store.key`), for other stores that seal
 * what they keep (the hub's `NodeFileKeyValueStore` seals stored server
 * configs with one).
 *
 * The file holds the key in base64. When it is missing, a random key is
 * written to a temporary file (mode 0600, flushed) and published with a
 * hard link, which fails when another process published first: that
 * process's key is then read, so processes starting together agree on one
 * key. An existing file that others can read is narrowed to 0600.
 *
 * It needs `FileSystem` from `@effect/platform` (`NodeFileSystem.layer`
 * or `NodeContext.layer` from `@effect/platform-node`).
 *
 * @since 0.3.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { StoreFailure } from "./internal/store/failure.js"
import * as internal from "./internal/store/fileKey.js"

/**
 * The key file cannot be read, created or narrowed, or it does not hold a
 * 32-byte base64 key. Never quotes the file's content.
 *
 * @since 0.3.0
 * @category errors
 */
export class KeyFileError extends Schema.TaggedError<KeyFileError>("@mcp-effect/oauth/KeyFileError")(
  "KeyFileError",
  {
    message: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {}

const toKeyFileError = (failure: StoreFailure): KeyFileError =>
  new KeyFileError({ message: failure.message, ...(failure.cause === undefined ? {} : { cause: failure.cause }) })

/**
 * Reads the key in the file at `path`, or creates the file with a random key
 * when there is none. Its directory must exist (and should be owner-only).
 *
 * @since 0.3.0
 * @category constructors
 */
export const loadOrCreate = (
  path: string
): Effect.Effect<Redacted.Redacted<Uint8Array>, KeyFileError, FileSystem.FileSystem> =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) => internal.loadOrCreate(fs, path).pipe(Effect.map(Redacted.make), Effect.mapError(toKeyFileError))
  )

/**
 * A key given by the app: 32 bytes, or their base64 / base64url encoding
 * (e.g. `openssl rand -base64 32` kept in a secret manager).
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromOption = (
  key: Redacted.Redacted<Uint8Array | string>
): Effect.Effect<Redacted.Redacted<Uint8Array>, KeyFileError> =>
  internal.fromOption(key).pipe(Effect.map(Redacted.make), Effect.mapError(toKeyFileError))
