import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as SessionStore from "../../SessionStore.js"
import { hasWebCrypto, sha256Hex } from "../platform/webCrypto.js"

const sealedPrefix = "sealed:v1:"
const ivBytes = 12

/** AES-GCM under `key`: `sealed:v1:<iv>:<ciphertext>`, base64. */
const seal = (key: CryptoKey, plain: string): Effect.Effect<string, Error> =>
  Effect.tryPromise({
    try: async () => {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(ivBytes))
      const sealed = await globalThis.crypto.subtle.encrypt(
        { name: "AES-GCM", iv },
        key,
        new TextEncoder().encode(plain)
      )
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
          await globalThis.crypto.subtle.decrypt(
            { name: "AES-GCM", iv: new Uint8Array(ivDecoded) },
            key,
            new Uint8Array(dataDecoded)
          )
        ),
      catch: () => new Error("the stored session id does not open with the store's key")
    })
  })

const hexDigits = 32

/** The first 32 hex digits of the SHA-256 of `text`; `undefined` without WebCrypto. */
const digest = (text: string): Effect.Effect<string | undefined> =>
  hasWebCrypto() ? Effect.map(sha256Hex(text), (hash) => hash.slice(0, hexDigits)) : Effect.succeed(undefined)

/** A name and an endpoint (or a bare name). */
const identityOf = (server: string | SessionStore.ServerIdentity): SessionStore.ServerIdentity =>
  typeof server === "string" ? { name: server } : server

/**
 * The key suffix of a server: its name, and a hash of its endpoint (never the endpoint: it may carry an
 * API key); `undefined` when the endpoint cannot be hashed (then nothing is stored or read).
 *
 * @internal
 */
export const keyOf = (server: string | SessionStore.ServerIdentity): Effect.Effect<string | undefined> => {
  const { endpoint, name } = identityOf(server)
  return endpoint === undefined ?
    Effect.succeed(name) :
    Effect.map(digest(endpoint), (hash) => hash === undefined ? undefined : `${name}@${hash}`)
}

/**
 * The public module hands in its schema and error: this module imports it as types only.
 * @internal
 */
export const make = (
  store: KeyValueStore.KeyValueStore,
  options: SessionStore.Options | undefined,
  { SessionStoreError, Stored }: {
    readonly Stored: typeof SessionStore.Stored
    readonly SessionStoreError: typeof SessionStore.SessionStoreError
  }
): SessionStore.Service => {
  const prefix = options?.prefix ?? "mcp-effect/session/"
  const key = options?.key
  const json = Schema.parseJson(Stored)
  const encode = Schema.encode(json)
  const decode = Schema.decodeUnknown(json)
  // (errors name the server by its name: never its endpoint)
  const failed =
    (server: string | SessionStore.ServerIdentity, operation: "get" | "set" | "remove") =>
    (cause: { readonly message: string }) => {
      const { name } = identityOf(server)
      return new SessionStoreError({
        server: name,
        operation,
        message: `could not ${operation} the stored session of ${JSON.stringify(name)}: ${cause.message}`,
        cause
      })
    }
  /** runs `use` with the key of `server`, or gives `orElse` when it has none */
  const keyed = <A, E>(
    server: string | SessionStore.ServerIdentity,
    orElse: A,
    use: (key: string) => Effect.Effect<A, E>
  ): Effect.Effect<A, E> =>
    Effect.flatMap(keyOf(server), (key) => key === undefined ? Effect.succeed(orElse) : use(key))
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
      keyed(server, Option.none(), (id) =>
        store.get(prefix + id).pipe(
          Effect.mapError(failed(server, "get")),
          Effect.flatMap(Option.match({
            onNone: () => Effect.succeedNone,
            // the parse error names fields and values of the record: never the session id, which is redacted
            onSome: (text) =>
              decode(text).pipe(Effect.flatMap(opened), Effect.asSome, Effect.mapError(failed(server, "get")))
          }))
        )),
    set: (server, stored) =>
      keyed(server, undefined, (id) =>
        sealed(stored).pipe(
          Effect.flatMap(encode),
          Effect.flatMap((text) => store.set(prefix + id, text)),
          Effect.mapError(failed(server, "set"))
        )),
    remove: (server) =>
      keyed(server, undefined, (id) =>
        store.remove(prefix + id).pipe(
          // nothing stored is removed already (the file store reports it, the others do not)
          Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed(server, "remove"))
        )),
    getEra: (server) =>
      keyed(server, Option.none(), (id) =>
        store.get(`${prefix}era/${id}`).pipe(
          // (anything else stored there is no era: the session probes)
          Effect.map(Option.filter((text): text is SessionStore.Era => text === "legacy" || text === "modern")),
          Effect.mapError(failed(server, "get"))
        )),
    setEra: (server, era) =>
      keyed(
        server,
        undefined,
        (id) => store.set(`${prefix}era/${id}`, era).pipe(Effect.mapError(failed(server, "set")))
      )
  }
}
