import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as BrowserTokenStore from "../../BrowserTokenStore.js"
import type * as TokenStore from "../../TokenStore.js"
import { StoreFailure, toTokenStoreError } from "./failure.js"
import * as HashedNames from "./hashedNames.js"
import * as IndexedDb from "./indexedDb.js"
import * as LocalStorage from "./localStorage.js"
import * as RecordStore from "./recordStore.js"
import * as Sealer from "./sealer.js"
import * as WebLocks from "./webLocks.js"

export const DEFAULT_NAME = "mcp-effect-oauth"

/** Reading a storage global can itself throw (storage disabled by the user). */
const global = <A>(read: () => A | undefined): Option.Option<A> => {
  try {
    return Option.fromNullable(read())
  } catch {
    return Option.none()
  }
}

const withIndexedDb = (factory: IDBFactory, name: string, options: BrowserTokenStore.Options | undefined) =>
  Effect.gen(function*() {
    const db = yield* IndexedDb.open(factory, name)
    const { key, keyId } = yield* IndexedDb.loadOrCreateKey(db)
    return RecordStore.make(HashedNames.hashed(IndexedDb.backend(db)), Sealer.aesGcm(key, keyId, "absent"), options)
  })

/**
 * No place can hold a non-extractable key across reloads here, so the key is
 * in memory only and records from earlier pages read as absent.
 */
const withLocalStorage = (name: string, options: BrowserTokenStore.Options | undefined, reason: string) =>
  Option.match(global(() => globalThis.localStorage), {
    onNone: () => Effect.fail(new StoreFailure({ message: `${reason}, and localStorage is unavailable too` })),
    onSome: (storage) =>
      Effect.logWarning(`${reason}: OAuth records go to localStorage and become unreadable after a reload`).pipe(
        Effect.zipRight(Sealer.generateKey),
        Effect.map(({ key, keyId }) =>
          RecordStore.make(
            HashedNames.hashed(LocalStorage.backend(storage, name)),
            Sealer.aesGcm(key, keyId, "absent"),
            options
          )
        )
      )
  })

export const make = (
  options: BrowserTokenStore.Options | undefined
): Effect.Effect<TokenStore.Service, TokenStore.TokenStoreError, Scope.Scope> => {
  const name = options?.name ?? DEFAULT_NAME
  // tabs of one origin share the store, so they share its refresh lock too
  const withLocks = (store: TokenStore.Service): TokenStore.Service => {
    const locks = WebLocks.fromGlobal()
    return locks === undefined ? store : { ...store, exclusive: WebLocks.exclusive(locks, name) }
  }
  return Effect.suspend(() =>
    Option.match(global(() => globalThis.indexedDB), {
      onNone: () => withLocalStorage(name, options, "IndexedDB is unavailable"),
      onSome: (factory) =>
        withIndexedDb(factory, name, options).pipe(
          Effect.catchAll((failure) => withLocalStorage(name, options, `IndexedDB cannot be used (${failure.message})`))
        )
    })
  ).pipe(Effect.map(withLocks), Effect.mapError(toTokenStoreError("open")))
}
