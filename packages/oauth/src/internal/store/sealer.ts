import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { StoreFailure } from "./failure.js"
import type { RecordName } from "./records.js"

/**
 * Turns a record's JSON text into what a backend stores, and back.
 * `open` answers none for a record sealed under another key when the store
 * treats such records as absent (the browser's memory-only key).
 */
export interface Sealer {
  readonly seal: (plaintext: string, name: RecordName) => Effect.Effect<string, StoreFailure>
  readonly open: (stored: string, name: RecordName) => Effect.Effect<Option.Option<string>, StoreFailure>
}

/** Memory store: nothing leaves the process, so nothing is encrypted. */
export const plain: Sealer = {
  seal: (plaintext) => Effect.succeed(plaintext),
  open: (stored) => Effect.succeedSome(stored)
}

const Envelope = Schema.parseJson(Schema.Struct({
  v: Schema.Literal(1),
  alg: Schema.Literal("A256GCM"),
  kid: Schema.String,
  iv: Schema.String,
  ct: Schema.String
}))

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const subtle = (): Effect.Effect<SubtleCrypto, StoreFailure> =>
  Effect.suspend(() =>
    globalThis.crypto?.subtle === undefined
      ? Effect.fail(new StoreFailure({ message: "WebCrypto is unavailable (it needs a secure context)" }))
      : Effect.succeed(globalThis.crypto.subtle)
  )

const decodeBytes = (text: string, orElse: StoreFailure): Effect.Effect<Uint8Array<ArrayBuffer>, StoreFailure> =>
  Either.match(Encoding.decodeBase64(text), {
    onLeft: () => Effect.fail(orElse),
    onRight: (bytes) => Effect.succeed(Uint8Array.from(bytes))
  })

/** A random identifier, hex encoded. */
export const randomId = (bytes: number): string =>
  Encoding.encodeHex(globalThis.crypto.getRandomValues(new Uint8Array(bytes)))

/** SHA-256 of a string, hex encoded. */
export const sha256Hex = (text: string): Effect.Effect<string, StoreFailure> =>
  Effect.flatMap(subtle(), (subtle) =>
    Effect.tryPromise({
      try: () => subtle.digest("SHA-256", encoder.encode(text)),
      catch: (cause) => new StoreFailure({ message: "hashing a record name failed", cause })
    })).pipe(Effect.map((digest) => Encoding.encodeHex(new Uint8Array(digest))))

/**
 * Imports 32 raw bytes as a non-extractable AES-256-GCM key. Its id is a
 * fingerprint (a truncated SHA-256 of a random 256-bit key reveals nothing
 * useful about it), so records sealed under another key are recognised.
 */
export const importRawKey = (
  raw: Uint8Array
): Effect.Effect<{ readonly key: CryptoKey; readonly keyId: string }, StoreFailure> =>
  Effect.gen(function*() {
    const crypto = yield* subtle()
    const key = yield* Effect.tryPromise({
      try: () => crypto.importKey("raw", Uint8Array.from(raw), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]),
      catch: (cause) => new StoreFailure({ message: "the encryption key could not be imported", cause })
    })
    const digest = yield* Effect.tryPromise({
      try: () => crypto.digest("SHA-256", new Uint8Array([...encoder.encode("mcp-effect/oauth key id\0"), ...raw])),
      catch: (cause) => new StoreFailure({ message: "the encryption key could not be fingerprinted", cause })
    })
    return { key, keyId: Encoding.encodeHex(new Uint8Array(digest).subarray(0, 8)) }
  })

/** A fresh non-extractable AES-256-GCM key with a random id. */
export const generateKey: Effect.Effect<{ readonly key: CryptoKey; readonly keyId: string }, StoreFailure> = Effect
  .flatMap(subtle(), (crypto) =>
    Effect.tryPromise({
      try: () => crypto.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]),
      catch: (cause) => new StoreFailure({ message: "an encryption key could not be generated", cause })
    }))
  .pipe(Effect.map((key) => ({ key, keyId: randomId(8) })))

/**
 * AES-256-GCM with a fresh 96-bit IV per record and the record's name as
 * additional authenticated data. `foreignKey` says what a record sealed under
 * another key means: an error (the Node store: the wrong key was configured),
 * or an absent record (the browser store after its memory-only key is gone).
 */
export const aesGcm = (
  key: CryptoKey,
  keyId: string,
  foreignKey: "fail" | "absent"
): Sealer => ({
  seal: (plaintext, name) =>
    Effect.gen(function*() {
      const crypto = yield* subtle()
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
      const ciphertext = yield* Effect.tryPromise({
        try: () =>
          crypto.encrypt(
            { name: "AES-GCM", iv, additionalData: encoder.encode(name.text) },
            key,
            encoder.encode(plaintext)
          ),
        catch: (cause) => new StoreFailure({ message: `encrypting the ${name.kind} record failed`, cause })
      })
      return JSON.stringify({
        v: 1,
        alg: "A256GCM",
        kid: keyId,
        iv: Encoding.encodeBase64(iv),
        ct: Encoding.encodeBase64(new Uint8Array(ciphertext))
      })
    }),
  open: (stored, name) =>
    Effect.gen(function*() {
      const corrupt = new StoreFailure({ message: `the stored ${name.kind} record is corrupt` })
      const envelope = yield* Effect.mapError(Schema.decode(Envelope)(stored), () => corrupt)
      if (envelope.kid !== keyId) {
        return foreignKey === "absent" ? Option.none<string>() : yield* Effect.fail(
          new StoreFailure({ message: `the stored ${name.kind} record was encrypted with a different key` })
        )
      }
      const iv = yield* decodeBytes(envelope.iv, corrupt)
      const ciphertext = yield* decodeBytes(envelope.ct, corrupt)
      const crypto = yield* subtle()
      const plaintext = yield* Effect.tryPromise({
        try: () => crypto.decrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(name.text) }, key, ciphertext),
        catch: () =>
          new StoreFailure({ message: `the stored ${name.kind} record could not be decrypted (corrupt or modified)` })
      })
      return Option.some(decoder.decode(plaintext))
    })
})
