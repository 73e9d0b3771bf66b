import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as KeyValueTokenStore from "../../KeyValueTokenStore.js"
import * as TokenStore from "../../TokenStore.js"
import { StoreFailure, toTokenStoreError } from "./failure.js"
import * as FileKey from "./fileKey.js"
import * as HashedNames from "./hashedNames.js"
import * as Records from "./records.js"
import * as RecordStore from "./recordStore.js"
import * as Sealer from "./sealer.js"

/**
 * Sealed records under `<prefix><kind>:<id>` (hashed by `HashedNames`: ids hold URLs, and a URL can hold a
 * key); the store's errors carry no value.
 */
const backend = (kv: KeyValueStore.KeyValueStore, prefix: string): RecordStore.Backend => {
  const failure = (what: string) => (cause: unknown) => new StoreFailure({ message: `${what} failed`, cause })
  return {
    get: (name) => Effect.mapError(kv.get(`${prefix}${name.text}`), failure(`reading the ${name.kind} record`)),
    set: (name, value) =>
      Effect.mapError(kv.set(`${prefix}${name.text}`, value), failure(`writing the ${name.kind} record`)),
    remove: (name) => Effect.mapError(kv.remove(`${prefix}${name.text}`), failure(`deleting the ${name.kind} record`))
  }
}

export const make = (
  options: KeyValueTokenStore.Options
): Effect.Effect<TokenStore.Service, TokenStore.TokenStoreError, KeyValueStore.KeyValueStore> =>
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    const raw = yield* FileKey.fromOption(options.key)
    const { key, keyId } = yield* Sealer.importRawKey(raw)
    const store = RecordStore.make(
      HashedNames.hashed(backend(kv, options.prefix ?? "oauth:")),
      Sealer.aesGcm(key, keyId, "fail"),
      options
    )
    const lock = options.lock
    if (lock === undefined) return store
    const lockError = (message: string) =>
      new TokenStore.TokenStoreError({ operation: "exclusive", message: `the refresh lock failed: ${message}` })
    const service: TokenStore.Service = {
      ...store,
      // named by a hash too: lock names are key names in a shared store
      exclusive: (tokenKey: TokenStore.TokenKey) =>
        Sealer.sha256Hex(Records.tokensId(tokenKey)).pipe(
          Effect.mapError((failure) => lockError(failure.message)),
          Effect.flatMap((hash) => Effect.mapError(lock(`oauth:${hash}`), (error) => lockError(error.message)))
        ),
      lease: options.lease === undefined ? undefined : Duration.decode(options.lease)
    }
    return service
  }).pipe(Effect.mapError((e) => e instanceof StoreFailure ? toTokenStoreError("open")(e) : e))
