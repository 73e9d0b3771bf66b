/**
 * The contract every `KeyValueStore` backend of the hub meets, as one suite
 * registered per backend.
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import { KeyValueStore as Tag } from "@effect/platform/KeyValueStore"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ServerConfig from "../../src/ServerConfig.js"

const Record = Schema.Struct({ id: Schema.Number, at: Schema.DateFromString, tags: Schema.Array(Schema.String) })

export interface ContractOptions {
  /** Whether a 1 MiB value fits (localStorage quotas may refuse it). Default `true`. */
  readonly large?: boolean
}

export const keyValueContract = <E>(
  name: string,
  store: Layer.Layer<KeyValueStore.KeyValueStore, E>,
  options: ContractOptions = {}
) =>
  layer(store, { timeout: 30_000 })(`KeyValueStore contract: ${name}`, (it) => {
    const kv = Effect.tap(Tag, (kv) => kv.clear)

    it.effect("get, set, overwrite, has, remove, size, clear", () =>
      Effect.gen(function*() {
        const store = yield* kv
        expect(yield* store.get("a")).toEqual(Option.none())
        expect(yield* store.isEmpty).toBe(true)
        yield* store.set("a", "1")
        yield* store.set("b", "2")
        yield* store.set("a", "one")
        expect(yield* store.get("a")).toEqual(Option.some("one"))
        expect(yield* store.has("b")).toBe(true)
        expect(yield* store.size).toBe(2)
        yield* store.remove("b")
        yield* store.remove("never-set")
        expect(yield* store.has("b")).toBe(false)
        expect(yield* store.size).toBe(1)
        yield* store.clear
        expect(yield* store.size).toBe(0)
        expect(yield* store.get("a")).toEqual(Option.none())
      }))

    it.effect("keeps any key and any string exactly", () =>
      Effect.gen(function*() {
        const store = yield* kv
        const keys = ["a:b/c", "https://example.com/mcp?x=1#y", "ünï cödé ✓", "...", "x".repeat(200)]
        const values = ["", " padded \n", "ünï\u0000cödé ✓ 😀", JSON.stringify({ nested: ["json"] })]
        for (const [i, key] of keys.entries()) yield* store.set(key, values[i % values.length]!)
        for (const [i, key] of keys.entries()) {
          expect(yield* store.get(key)).toEqual(Option.some(values[i % values.length]))
        }
        expect(yield* store.size).toBe(keys.length)
      }))

    it.effect("keeps bytes exactly, and reads strings as UTF-8 bytes", () =>
      Effect.gen(function*() {
        const store = yield* kv
        const bytes = new Uint8Array([0, 1, 127, 128, 254, 255])
        yield* store.set("bytes", bytes)
        const read = yield* store.getUint8Array("bytes")
        expect(Option.map(read, (b) => [...b])).toEqual(Option.some([...bytes]))
        yield* store.set("text", "é")
        expect(Option.map(yield* store.getUint8Array("text"), (b) => [...b])).toEqual(Option.some([0xc3, 0xa9]))
      }))

    it.effect("modify changes a present value only", () =>
      Effect.gen(function*() {
        const store = yield* kv
        expect(yield* store.modify("m", (v) => v + "!")).toEqual(Option.none())
        yield* store.set("m", "hi")
        expect(yield* store.modify("m", (v) => v + "!")).toEqual(Option.some("hi!"))
        expect(yield* store.get("m")).toEqual(Option.some("hi!"))
      }))

    it.effect("schema-encoded values round-trip, the registry's configs included", () =>
      Effect.gen(function*() {
        const store = yield* kv
        const records = store.forSchema(Record)
        const value = { id: 7, at: new Date("2026-01-02T03:04:05.000Z"), tags: ["x"] }
        yield* records.set("r", value)
        expect(yield* records.get("r")).toEqual(Option.some(value))
        const configs = store.forSchema(ServerConfig.ServerConfig)
        const config = {
          name: "s",
          transport: { _tag: "Http" as const, url: "${BASE}/mcp", headers: { "X-Key": "${KEY}" } },
          disabled: false,
          trusted: true
        }
        yield* configs.set("c", config)
        expect(yield* configs.get("c")).toEqual(Option.some(config))
        // a stored value that no longer decodes is an error, not a wrong value
        yield* store.set("r", "{\"id\":\"not a number\"}")
        expect((yield* Effect.flip(records.get("r")))._tag).toBe("ParseError")
      }))

    if (options.large !== false) {
      it.effect("holds a 1 MiB value", () =>
        Effect.gen(function*() {
          const store = yield* kv
          const big = "x".repeat(1024 * 1024)
          yield* store.set("big", big)
          expect(Option.map(yield* store.get("big"), (v) => v.length)).toEqual(Option.some(big.length))
        }))
    }
  })
