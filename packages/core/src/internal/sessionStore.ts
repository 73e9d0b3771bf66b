import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SessionStore from "../SessionStore.js"

const sealedPrefix = "sealed:v1:"
const ivBytes = 12

/** AES-GCM under `key`: `sealed:v1:<iv>:<ciphertext>`, base64. */
const seal = (key: CryptoKey, plain: string): Effect.Effect<string, Error> =>
  Effect.tryPromise({
    try: async () => {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(ivBytes))
      const sealed = await globalThis.crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plain))
      return `${sealedPrefix}${Encoding.encodeBase64(iv)}:${Encoding.encodeBase64(new Uint8Array(sealed))}`
    },
    catch: () => new Error("the session id could not be sealed with the store's key")
  })

const unseal = (key: CryptoKey, value: string): Effect.Effect<string, Error> =>
  Effect.suspend(() => {
    const [iv, data] = value.startsWith(sealedPrefix) ? value.slice(sealedPrefix.length).split(":") : []
    const ivDecoded = iv === undefined ? undefined : Either.getOrUndefined(Encoding.decodeBase64(iv))
    const dataDecoded = data === undefined ? undefined : Either.getOrUndefined(Encoding.decodeBase64(data))
    if (ivDecoded === undefined || dataDecoded === undefined) {
      return Effect.fail(new Error("the stored session id is not sealed, and this store seals it"))
    }
    return Effect.tryPromise({
      try: async () =>
        new TextDecoder().decode(
          await globalThis.crypto.subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(ivDecoded) }, key, new Uint8Array(dataDecoded))
        ),
      catch: () => new Error("the stored session id does not open with the store's key")
    })
  })

/** @internal */
export const make = (
  store: KeyValueStore.KeyValueStore,
  options?: SessionStore.Options
): SessionStore.Service => {
  const prefix = options?.prefix ?? "mcp-effect/session/"
  const key = options?.key
  // built here, not at load: this module and `SessionStore` import each other
  const json = Schema.parseJson(SessionStore.Stored)
  const encode = Schema.encode(json)
  const decode = Schema.decodeUnknown(json)
  const failed = (server: string, operation: "get" | "set" | "remove") => (cause: { readonly message: string }) =>
    new SessionStore.SessionStoreError({
      server,
      operation,
      message: `could not ${operation} the stored session of ${JSON.stringify(server)}: ${cause.message}`,
      cause
    })
  const sealed = (stored: SessionStore.Stored) =>
    key === undefined ? Effect.succeed(stored) : Effect.map(
      seal(key, Redacted.value(stored.sessionId)),
      (sessionId) => ({ ...stored, sessionId: Redacted.make(sessionId) })
    )
  const opened = (stored: SessionStore.Stored) => {
    const value = Redacted.value(stored.sessionId)
    if (key !== undefined) {
      return Effect.map(unseal(key, value), (sessionId) => ({ ...stored, sessionId: Redacted.make(sessionId) }))
    }
    return value.startsWith(sealedPrefix) ?
      Effect.fail(new Error("the stored session id is sealed, and this store has no key")) :
      Effect.succeed(stored)
  }
  return {
    get: (server) =>
      store.get(prefix + server).pipe(
        Effect.mapError(failed(server, "get")),
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          // the parse error names fields and values of the record: never the session id, which is redacted
          onSome: (text) =>
            decode(text).pipe(Effect.flatMap(opened), Effect.asSome, Effect.mapError(failed(server, "get")))
        }))
      ),
    set: (server, stored) =>
      sealed(stored).pipe(
        Effect.flatMap(encode),
        Effect.flatMap((text) => store.set(prefix + server, text)),
        Effect.mapError(failed(server, "set"))
      ),
    remove: (server) =>
      store.remove(prefix + server).pipe(
        // nothing stored is removed already (the file store reports it, the others do not)
        Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
        Effect.mapError(failed(server, "remove"))
      )
  }
}
