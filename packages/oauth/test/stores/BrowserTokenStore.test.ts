// @vitest-environment happy-dom
import "fake-indexeddb/auto"
import { afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { vi } from "vitest"
import * as BrowserTokenStore from "../../src/BrowserTokenStore.js"
import * as TokenStore from "../../src/TokenStore.js"
import { client, contractSuite, exposeTokens, key, pending, secrets, tokens } from "./contract.js"

let databases = 0
const freshName = () => `mcp-effect-oauth-test-${++databases}`

const idb = <A>(what: string, make: () => IDBRequest<A>) =>
  Effect.async<A, Error>((resume) => {
    const req = make()
    req.onsuccess = () => resume(Effect.succeed(req.result))
    req.onerror = () => resume(Effect.fail(new Error(what)))
  })

/** Reads a whole object store of the store's database, outside the store. */
const dump = (name: string, objectStore: "records" | "keys") =>
  Effect.acquireUseRelease(
    idb("open", () => indexedDB.open(name)),
    (db) => idb("getAll", () => db.transaction(objectStore).objectStore(objectStore).getAll()),
    (db) => Effect.sync(() => db.close())
  )

const withDb = <A, E>(name: string, use: (db: IDBDatabase) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(idb("open", () => indexedDB.open(name)), use, (db) => Effect.sync(() => db.close()))

const recordKeys = (name: string) =>
  withDb(name, (db) => idb("getAllKeys", () => db.transaction("records").objectStore("records").getAllKeys()))

const writeAll = (store: TokenStore.Service) =>
  Effect.all([store.setTokens(key, tokens), store.setClient(key.issuer, client), store.setPending(pending(0))])

const withStore = <A, E>(options: BrowserTokenStore.Options, use: (store: TokenStore.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(BrowserTokenStore.make(options), use))

const localStorageEntries = (prefix: string) =>
  Object.keys(localStorage).filter((k) => k.startsWith(`${prefix}:`)).map((k) => [k, localStorage.getItem(k)!] as const)

const hideIndexedDb = () => {
  beforeAll(() => {
    vi.stubGlobal("indexedDB", undefined)
    return () => vi.unstubAllGlobals()
  })
}

afterEach(() => localStorage.clear())

describe("BrowserTokenStore with IndexedDB", () => {
  contractSuite("browser, IndexedDB", (options) => BrowserTokenStore.layer({ name: freshName(), ...options }))

  it.effect("keeps records in IndexedDB, encrypted, and nothing in localStorage", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, writeAll)
      const records = yield* dump(name, "records")
      expect(records).toHaveLength(3)
      for (const record of records) {
        expect(typeof record).toBe("string")
        for (const s of [...secrets, key.resource]) expect(record).not.toContain(s)
      }
      expect(localStorage.length).toBe(0)
    }))

  it.effect("record keys are SHA-256 hashes: no server or issuer URL in them", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, writeAll)
      const keys = (yield* recordKeys(name)).map(String)
      expect(keys).toHaveLength(3)
      for (const k of keys) {
        expect(k).toMatch(/^(tokens|client|pending):[0-9a-f]{64}$/)
        expect(k).not.toContain(new URL(key.issuer).host)
      }
    }))

  it.effect("a record an earlier version kept under its plain name is read, then moved under the hash", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, (store) => store.setTokens(key, tokens))
      const [hashedKey] = yield* recordKeys(name)
      const plainKey = `tokens:${JSON.stringify([key.resource, key.issuer])}`
      const [value] = yield* dump(name, "records")
      yield* withDb(name, (db) =>
        Effect.zipRight(
          idb("delete", () => db.transaction("records", "readwrite").objectStore("records").delete(hashedKey!)),
          idb("put", () => db.transaction("records", "readwrite").objectStore("records").put(value, plainKey))
        ))
      expect(yield* recordKeys(name)).toEqual([plainKey])
      const read = yield* withStore({ name }, (store) => store.getTokens(key))
      expect(exposeTokens(Option.getOrThrow(read))).toEqual(exposeTokens(tokens))
      expect(yield* recordKeys(name)).toEqual([hashedKey])
    }))

  it.effect("persists a non-extractable AES-GCM CryptoKey", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, (store) => store.setTokens(key, tokens))
      const [entry] = yield* dump(name, "keys")
      const stored: CryptoKey = entry.key
      expect(stored).toBeInstanceOf(CryptoKey)
      expect(stored.extractable).toBe(false)
      expect(stored.algorithm).toMatchObject({ name: "AES-GCM", length: 256 })
      const exported = yield* Effect.either(Effect.tryPromise(() => crypto.subtle.exportKey("raw", stored)))
      expect(exported._tag).toBe("Left")
    }))

  it.effect("a fresh instance over the same database reads what an earlier one wrote", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, writeAll)
      const read = yield* withStore({ name }, (store) => store.getTokens(key))
      expect(exposeTokens(Option.getOrThrow(read))).toEqual(exposeTokens(tokens))
      expect(yield* dump(name, "keys")).toHaveLength(1)
    }))

  it.effect("instances starting together agree on one key", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* Effect.all([
        withStore({ name }, (store) => store.setTokens(key, tokens)),
        withStore({ name }, (store) => store.setClient(key.issuer, client))
      ], { concurrency: "unbounded" })
      expect(yield* dump(name, "keys")).toHaveLength(1)
      yield* withStore({ name }, (store) =>
        Effect.gen(function*() {
          expect(Option.isSome(yield* store.getTokens(key))).toBe(true)
          expect(Option.isSome(yield* store.getClient(key.issuer))).toBe(true)
        }))
    }))

  it.effect("a record that does not decrypt is a TokenStoreError without secrets", () =>
    Effect.gen(function*() {
      const name = freshName()
      const error = yield* withStore({ name }, (store) =>
        Effect.gen(function*() {
          yield* store.setTokens(key, tokens)
          const db = yield* idb("open", () => indexedDB.open(name))
          const [id] = yield* idb("keys", () => db.transaction("records").objectStore("records").getAllKeys())
          const stored = JSON.parse((yield* dump(name, "records"))[0])
          yield* idb("put", () =>
            db.transaction("records", "readwrite").objectStore("records").put(
              JSON.stringify({ ...stored, ct: stored.ct.replace(/^./, (c: string) => c === "A" ? "B" : "A") }),
              id!
            ))
          db.close()
          return yield* Effect.flip(store.getTokens(key))
        }))
      expect(error).toBeInstanceOf(TokenStore.TokenStoreError)
      expect(error.message).toMatch(/could not be decrypted/)
      for (const s of secrets) expect(JSON.stringify(error)).not.toContain(s)
    }))

  it.effect("falls back to localStorage when IndexedDB cannot be opened", () =>
    Effect.gen(function*() {
      vi.stubGlobal("indexedDB", {
        open: () => {
          throw new DOMException("denied", "SecurityError")
        }
      })
      const name = freshName()
      const read = yield* withStore({ name }, (store) =>
        Effect.zipRight(store.setTokens(key, tokens), store.getTokens(key))).pipe(
          Effect.ensuring(Effect.sync(() =>
            vi.unstubAllGlobals()
          ))
        )
      expect(Option.isSome(read)).toBe(true)
      expect(localStorageEntries(name)).toHaveLength(1)
    }))
})

describe("BrowserTokenStore with localStorage only", () => {
  hideIndexedDb()

  contractSuite(
    "browser, localStorage fallback",
    (options) => BrowserTokenStore.layer({ name: freshName(), ...options })
  )

  it.effect("keeps records in localStorage under its prefix, encrypted", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, writeAll)
      const entries = localStorageEntries(name)
      expect(entries).toHaveLength(3)
      for (const [storageKey, value] of entries) {
        expect(storageKey).toMatch(new RegExp(`^${name}:(tokens|client|pending):[0-9a-f]{64}$`))
        for (const s of secrets) expect(value).not.toContain(s)
      }
    }))

  it.effect("after a reload the memory-only key is gone: old records read as absent, new ones work", () =>
    Effect.gen(function*() {
      const name = freshName()
      yield* withStore({ name }, writeAll)
      yield* withStore({ name }, (store) =>
        Effect.gen(function*() {
          expect(Option.isNone(yield* store.getTokens(key))).toBe(true)
          expect(Option.isNone(yield* store.getClient(key.issuer))).toBe(true)
          expect(Option.isNone(yield* store.getPending("state-0d9e"))).toBe(true)
          yield* store.setTokens(key, { ...tokens, accessToken: Redacted.make("after-reload") })
          const read = Option.getOrThrow(yield* store.getTokens(key))
          expect(Redacted.value(read.accessToken)).toBe("after-reload")
        }))
    }))

  it.effect("fails with a TokenStoreError when localStorage is unavailable too", () =>
    Effect.gen(function*() {
      const storage = globalThis.localStorage
      vi.stubGlobal("localStorage", undefined)
      const error = yield* Effect.flip(Layer.build(BrowserTokenStore.layer())).pipe(
        Effect.scoped,
        Effect.ensuring(Effect.sync(() => vi.stubGlobal("localStorage", storage)))
      )
      expect(error).toBeInstanceOf(TokenStore.TokenStoreError)
      expect(error.message).toMatch(/localStorage is unavailable/)
    }))
})

/** A lock manager as the browser's: one holder per name, waiters in order, a request withdrawn by its signal. */
const fakeLocks = () => {
  const held = new Set<string>()
  const waiting = new Map<string, Array<() => void>>()
  const names: Array<string> = []
  const request = (name: string, options: { readonly signal: AbortSignal }, callback: () => Promise<void>) =>
    new Promise<void>((resolve, reject) => {
      names.push(name)
      const grant = () => {
        held.add(name)
        void callback().then(() => {
          held.delete(name)
          waiting.get(name)?.shift()?.()
          resolve()
        })
      }
      if (!held.has(name)) return grant()
      const queue = waiting.get(name) ?? []
      waiting.set(name, queue)
      queue.push(grant)
      options.signal.addEventListener("abort", () => {
        const at = queue.indexOf(grant)
        if (at < 0) return
        queue.splice(at, 1)
        reject(new DOMException("the request was aborted", "AbortError"))
      })
    })
  return { request, names }
}

const withLocks = (locks: ReturnType<typeof fakeLocks> | undefined) => {
  beforeAll(() => {
    vi.stubGlobal("navigator", { ...globalThis.navigator, locks })
    return () => vi.unstubAllGlobals()
  })
}

describe("BrowserTokenStore's refresh lock, shared by the tabs of an origin (Web Locks)", () => {
  const locks = fakeLocks()
  withLocks(locks)

  it.live("two holders of one token's lock run one after the other; the lock is named by a hash, no URL", () =>
    withStore({ name: freshName() }, (store) =>
      Effect.gen(function*() {
        const exclusive = store.exclusive!
        const events: Array<string> = []
        const holder = (who: string) =>
          Effect.scoped(
            exclusive(key).pipe(
              Effect.zipRight(Effect.sync(() => events.push(`${who} in`))),
              Effect.zipRight(Effect.sleep(20)),
              Effect.zipRight(Effect.sync(() => events.push(`${who} out`)))
            )
          )
        yield* Effect.all([holder("a"), holder("b")], { concurrency: 2 })
        expect(events).toEqual(["a in", "a out", "b in", "b out"])
        expect(locks.names.every((name) => /^mcp-effect-oauth-test-\d+:refresh:[0-9a-f]{64}$/.test(name))).toBe(true)
      })))

  it.live("a holder interrupted while it waits withdraws its request: the next one is not held up", () =>
    withStore({ name: freshName() }, (store) =>
      Effect.gen(function*() {
        const exclusive = store.exclusive!
        const release = yield* Deferred.make<void>()
        const first = yield* Effect.fork(Effect.scoped(Effect.zipRight(exclusive(key), Deferred.await(release))))
        yield* Effect.sleep(10)
        const second = yield* Effect.fork(Effect.scoped(exclusive(key)))
        yield* Effect.sleep(10)
        yield* Fiber.interrupt(second)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        const third = yield* Effect.timeout(Effect.scoped(exclusive(key)), 1_000)
        expect(third).toBeUndefined()
      })))
})

describe("BrowserTokenStore without Web Locks", () => {
  withLocks(undefined)

  it.effect("has no refresh lock (a single tab's refreshes are single-flight already)", () =>
    withStore({ name: freshName() }, (store) => Effect.sync(() => expect(store.exclusive).toBeUndefined())))
})
