import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { StoreFailure } from "./failure.js"
import * as Files from "./fileSystem.js"
import * as Sealer from "./sealer.js"

const KEY_BYTES = 32

const fromBase64 = (text: string): Option.Option<Uint8Array> => {
  const trimmed = text.trim()
  return Either.getRight(Encoding.decodeBase64(trimmed)).pipe(
    Option.orElse(() => Either.getRight(Encoding.decodeBase64Url(trimmed))),
    Option.filter((bytes) => bytes.length === KEY_BYTES)
  )
}

/** The `key` option: 32 bytes, or their base64 / base64url encoding. */
export const fromOption = (key: Redacted.Redacted<Uint8Array | string>): Effect.Effect<Uint8Array, StoreFailure> => {
  const value = Redacted.value(key)
  const bytes = typeof value === "string"
    ? fromBase64(value)
    : Option.liftPredicate(value, (bytes) => bytes.length === KEY_BYTES)
  return Option.match(bytes, {
    onNone: () =>
      Effect.fail(
        new StoreFailure({ message: "the key option must be 32 bytes, or their base64 or base64url encoding" })
      ),
    onSome: Effect.succeed
  })
}

/**
 * The key file: read it, or create it (owner-only) when there is none. It is
 * written to a temporary file first and published with a hard link, which
 * fails if another process won the race; the loser then reads the winner's key.
 */
export const loadOrCreate = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Uint8Array, StoreFailure> => {
  const parse = (text: string) =>
    Option.match(fromBase64(text), {
      onNone: () => Effect.fail(new StoreFailure({ message: "the key file does not hold a 32-byte base64 key" })),
      onSome: Effect.succeed
    })
  const existing = Effect.flatMap(
    Files.readIfExists(fs, path, "the key file"),
    Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (text) =>
        Effect.zipRight(
          Effect.mapError(Files.ensurePrivateFile(fs, path), Files.failure("tightening the key file failed")),
          Effect.map(parse(text), Option.some)
        )
    })
  )
  const create = Effect.gen(function*() {
    const raw = globalThis.crypto.getRandomValues(new Uint8Array(KEY_BYTES))
    const temporary = `${path}.${Sealer.randomId(8)}.tmp`
    const published = yield* Files.writePrivateFile(fs, temporary, `${Encoding.encodeBase64(raw)}\n`).pipe(
      Effect.zipRight(fs.link(temporary, path)),
      Effect.as(true),
      Effect.catchIf(
        (error) => error._tag === "SystemError" && error.reason === "AlreadyExists",
        () => Effect.succeed(false)
      ),
      Effect.ensuring(Effect.ignore(fs.remove(temporary, { force: true }))),
      Effect.mapError(Files.failure("creating the key file failed"))
    )
    return published ? raw : yield* Effect.flatMap(
      existing,
      Option.match({
        onNone: () => Effect.fail(new StoreFailure({ message: "the key file vanished while it was being created" })),
        onSome: Effect.succeed
      })
    )
  })
  return Effect.flatMap(existing, Option.match({ onNone: () => create, onSome: Effect.succeed }))
}
