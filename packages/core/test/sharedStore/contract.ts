/**
 * The contract every `SharedStore` backend meets, as one suite registered per
 * backend: two instances on one backend (as two processes have), per-record
 * writes that lose nothing when they interleave, and changes seen by the
 * other instance within a second.
 */
import { expect, layer } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as SharedStore from "../../src/SharedStore.js"

export class Pair extends Context.Tag("test/SharedStore/Pair")<Pair, {
  readonly a: SharedStore.Service
  readonly b: SharedStore.Service
}>() {}

let collections = 0
const fresh = () => `contract-${Date.now().toString(36)}-${collections++}`

export const sharedStoreContract = <E>(name: string, pair: Layer.Layer<Pair, E>) =>
  // real time: the changes of another process arrive when they arrive
  layer(pair, { timeout: 30_000, excludeTestServices: true })(`SharedStore contract: ${name}`, (it) => {
    it.effect("put, get, list in id order, remove (twice), any id and value kept exactly", () =>
      Effect.gen(function*() {
        const { a, b } = yield* Pair
        const name = fresh()
        const ids = ["b", "a", "x:y/z", "ünï ✓", ".", "..", "%41", "#index", "x".repeat(150)]
        const value = (id: string) => `value of ${id} \n ünï\u0000 ${JSON.stringify({ id })}`
        yield* Effect.forEach(ids, (id) => a.collection(name).put(id, value(id)), { discard: true })
        yield* a.collection(name).put("b", "second")
        expect(yield* b.collection(name).get("b")).toEqual(Option.some("second"))
        expect(yield* b.collection(name).get("nope")).toEqual(Option.none())
        const listed = yield* b.collection(name).list
        expect(listed.map(([id]) => id)).toEqual([...ids].sort((x, y) => x < y ? -1 : x > y ? 1 : 0))
        expect(listed.find(([id]) => id === "ünï ✓")?.[1]).toBe(value("ünï ✓"))
        yield* b.collection(name).remove("a")
        yield* b.collection(name).remove("a")
        expect(yield* a.collection(name).get("a")).toEqual(Option.none())
        expect((yield* a.collection(name).list).length).toBe(ids.length - 1)
        // collections are apart
        expect(yield* a.collection(`${name}-other`).list).toEqual([])
      }))

    it.effect("interleaved writes from two instances lose nothing", () =>
      Effect.gen(function*() {
        const { a, b } = yield* Pair
        const name = fresh()
        const writes = (store: SharedStore.Service, who: string) =>
          Effect.forEach(
            Array.from({ length: 40 }, (_, i) => i),
            (i) => store.collection(name).put(`${who}-${String(i).padStart(2, "0")}`, `${who}${i}`),
            { concurrency: 8, discard: true }
          )
        yield* Effect.all([writes(a, "a"), writes(b, "b")], { concurrency: 2 })
        expect((yield* a.collection(name).list).length).toBe(80)
        yield* Effect.all([
          Effect.forEach(
            Array.from({ length: 20 }, (_, i) => `a-${String(i).padStart(2, "0")}`),
            b.collection(name).remove,
            {
              concurrency: 8
            }
          ),
          Effect.forEach(
            Array.from({ length: 20 }, (_, i) => `b-${String(i).padStart(2, "0")}`),
            a.collection(name).remove,
            {
              concurrency: 8
            }
          )
        ], { concurrency: 2 })
        expect((yield* b.collection(name).list).length).toBe(40)
      }))

    it.effect("compareAndSet writes only over the value expected, or only where there is none", () =>
      Effect.gen(function*() {
        const { a, b } = yield* Pair
        const name = fresh()
        expect(yield* a.collection(name).compareAndSet("r", Option.some("x"), "y")).toBe(false)
        expect(yield* a.collection(name).get("r")).toEqual(Option.none())
        expect(yield* a.collection(name).compareAndSet("r", Option.none(), "pending")).toBe(true)
        expect(yield* b.collection(name).compareAndSet("r", Option.none(), "other")).toBe(false)
        expect(yield* b.collection(name).compareAndSet("r", Option.some("pending"), "answered")).toBe(true)
        expect(yield* a.collection(name).compareAndSet("r", Option.some("pending"), "answered twice")).toBe(false)
        expect(yield* a.collection(name).get("r")).toEqual(Option.some("answered"))
        expect((yield* b.collection(name).list).map(([id]) => id)).toEqual(["r"])
      }))

    it.effect("of many compareAndSet calls racing from two instances over one value, exactly one wins", () =>
      Effect.gen(function*() {
        const { a, b } = yield* Pair
        const name = fresh()
        yield* a.collection(name).put("r", "pending")
        const attempts = Array.from({ length: 16 }, (_, i) =>
          (i % 2 === 0 ? a : b).collection(name).compareAndSet("r", Option.some("pending"), `answer ${i}`))
        const won = (yield* Effect.all(attempts, { concurrency: "unbounded" })).flatMap((wrote, i) =>
          wrote ? [i] : []
        )
        expect(won.length).toBe(1)
        expect(yield* b.collection(name).get("r")).toEqual(Option.some(`answer ${won[0]}`))
      }))

    it.scoped("a put and a remove in one instance are seen by the other within a second", () =>
      Effect.gen(function*() {
        const { a, b } = yield* Pair
        const name = fresh()
        const changes = yield* b.collection(name).subscribe
        const seen = yield* Effect.fork(Stream.runCollect(Stream.take(Stream.filter(changes, (id) => id === "k"), 2)))
        yield* a.collection(name).put("k", "v")
        yield* Effect.sleep("20 millis")
        yield* a.collection(name).remove("k")
        const ids = yield* Fiber.join(seen).pipe(Effect.timeout("1 second"))
        expect(Chunk.toReadonlyArray(ids)).toEqual(["k", "k"])
        // the other collection's changes are not reported
        const other = yield* b.collection(`${name}-other`).subscribe
        yield* a.collection(name).put("k2", "v")
        expect(yield* Stream.runHead(Stream.timeout(other, "200 millis")).pipe(Effect.map(Option.isNone))).toBe(true)
      }))
  })
