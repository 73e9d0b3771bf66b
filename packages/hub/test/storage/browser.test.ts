// @vitest-environment happy-dom
import "fake-indexeddb/auto"
import * as BrowserKeyValueStore from "@effect/platform-browser/BrowserKeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { IDBFactory } from "fake-indexeddb"
import { vi } from "vitest"
import { continuationsContract } from "../../../core/test/continuations/contract.js"
import { Pair, sharedStoreContract } from "../../../core/test/sharedStore/contract.js"
import * as IndexedDbKeyValueStore from "../../src/IndexedDbKeyValueStore.js"
import { keyValueContract } from "./contract.js"

keyValueContract("browser localStorage", BrowserKeyValueStore.layerLocalStorage, { large: false })
keyValueContract("browser IndexedDB", IndexedDbKeyValueStore.layer({ database: "contract" }))

describe("IndexedDbKeyValueStore", () => {
  it.effect("a second instance over the same database reads what the first wrote", () =>
    Effect.gen(function*() {
      const factory = new IDBFactory()
      yield* Effect.scoped(Effect.flatMap(IndexedDbKeyValueStore.make({ factory }), (kv) => kv.set("k", "v")))
      const read = yield* Effect.scoped(Effect.flatMap(IndexedDbKeyValueStore.make({ factory }), (kv) => kv.get("k")))
      expect(read).toEqual(Option.some("v"))
    }))

  it.effect("the shared records are apart from the keys: clear and size see the keys only", () =>
    Effect.gen(function*() {
      const factory = new IDBFactory()
      yield* Effect.scoped(Effect.gen(function*() {
        const kv = yield* IndexedDbKeyValueStore.make({ factory })
        const records = (yield* IndexedDbKeyValueStore.makeShared({ factory })).collection("c")
        yield* kv.set("k", "v")
        yield* records.put("k", "record")
        expect(yield* kv.size).toBe(1)
        expect(yield* kv.get("k")).toEqual(Option.some("v"))
        yield* kv.clear
        expect(yield* records.list).toEqual([["k", "record"]])
      }))
    }))

  it.effect("without IndexedDB, building fails typed", () =>
    Effect.gen(function*() {
      vi.stubGlobal("indexedDB", undefined)
      const error = yield* Effect.flip(Effect.scoped(IndexedDbKeyValueStore.make())).pipe(
        Effect.ensuring(Effect.sync(() => vi.unstubAllGlobals()))
      )
      expect(error._tag).toBe("BadArgument")
    }))
})

// the SharedStore contract on IndexedDB: two instances on one database, as two tabs have
const twoTabs = Layer.scoped(
  Pair,
  Effect.suspend(() => {
    const factory = new IDBFactory()
    return Effect.all({
      a: IndexedDbKeyValueStore.makeShared({ factory, database: "shared" }),
      b: IndexedDbKeyValueStore.makeShared({ factory, database: "shared" })
    })
  })
)
sharedStoreContract("browser IndexedDB", twoTabs)
// continuations on IndexedDB: a request waiting in one tab answered from another (or after a reload)
continuationsContract("browser IndexedDB", twoTabs)
