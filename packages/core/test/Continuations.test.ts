import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Continuations from "../src/Continuations.js"
import * as Elicitation from "../src/Elicitation.js"
import * as SharedStore from "../src/SharedStore.js"
import { continuationsContract } from "./continuations/contract.js"
import {
  accept,
  ask,
  call,
  clientOf,
  done,
  handlersOf,
  inputRequired,
  pending,
  scriptedServer
} from "./continuations/fixtures.js"
import { Pair } from "./sharedStore/contract.js"

const backends: ReadonlyArray<readonly [string, Effect.Effect<SharedStore.Service>]> = [
  ["memory", Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory)],
  [
    "a KeyValueStore",
    Effect.map(Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory), SharedStore.fromKeyValueStore)
  ]
]

describe("Continuations", () => {
  for (const [backend, store] of backends) {
    describe(`over ${backend}`, () => {
      const make = (options?: Continuations.Options) => Effect.flatMap(store, (s) => Continuations.make(s, options))

      it.effect("a call waiting for input is a record another process lists and answers; the call completes once", () =>
        Effect.gen(function*() {
          const service = yield* make()
          const server = scriptedServer([inputRequired("s1"), done("sunny")])
          const caller = yield* Effect.fork(call(service, server))
          const [record] = yield* pending(service)
          expect(record).toMatchObject({
            server: "weather",
            method: "tools/call",
            params: { name: "forecast", arguments: { city: "Oslo" } },
            requestState: "s1",
            inputRequests: { name: ask("your name?") },
            round: 1,
            state: "Pending"
          })
          const result = yield* service.answer(record!.id, { name: accept }, { client: clientOf(server) })
          expect(result).toEqual(done("sunny"))
          expect(yield* Fiber.join(caller)).toEqual(done("sunny"))
          expect(server.retries()).toEqual([
            { name: "forecast", arguments: { city: "Oslo" }, inputResponses: { name: accept }, requestState: "s1" }
          ])
          expect(Option.map(yield* service.get(record!.id), (r) => [r.state, r.result])).toEqual(
            Option.some(["Completed", done("sunny")])
          )
          expect(yield* service.list()).toEqual([])
        }))

      it.effect("two answers at once: one is sent, the other fails with ContinuationAlreadyAnswered", () =>
        Effect.gen(function*() {
          const service = yield* make()
          const server = scriptedServer([inputRequired("s1"), done("once")])
          yield* Effect.fork(call(service, server))
          const [record] = yield* pending(service)
          const results = yield* Effect.all(
            [1, 2].map(() => Effect.either(service.answer(record!.id, { name: accept }, { client: clientOf(server) }))),
            { concurrency: "unbounded" }
          )
          expect(results.filter(Either.isRight).map((r) => r.right)).toEqual([done("once")])
          expect(results.filter(Either.isLeft).map((r) => r.left)).toMatchObject([
            { _tag: "ContinuationAlreadyAnswered", id: record!.id }
          ])
          expect(server.retries().length).toBe(1)
          const again = yield* Effect.flip(service.answer(record!.id, { name: accept }, { client: clientOf(server) }))
          expect(again).toMatchObject({ _tag: "ContinuationAlreadyAnswered", state: "Completed" })
        }))
    })
  }

  it.effect("the calling process answers with its own handler, claiming the record first", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory))
      const server = scriptedServer([inputRequired("s1"), done("local")])
      const handlers = yield* handlersOf(Elicitation.layer(() => Effect.succeed(accept as never)))
      expect(yield* call(service, server, handlers)).toEqual(done("local"))
      expect(server.retries().length).toBe(1)
      const [record] = yield* service.list({ state: "All" })
      expect(record).toMatchObject({ state: "Completed", result: done("local") })
    }))

  it.effect("answered elsewhere while the caller's own prompt is open: its handler is interrupted, its call gets the result", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory))
      const server = scriptedServer([inputRequired("s1"), done("from B")])
      const asked = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const slowUser = Elicitation.layer(() =>
        Effect.zipRight(Deferred.succeed(asked, undefined), Effect.never).pipe(
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
      )
      const caller = yield* Effect.fork(call(service, server, yield* handlersOf(slowUser)))
      yield* Deferred.await(asked)
      const [record] = yield* pending(service)
      expect(yield* service.answer(record!.id, { name: accept }, { client: clientOf(server) })).toEqual(done("from B"))
      expect(yield* Fiber.join(caller)).toEqual(done("from B"))
      expect(yield* Deferred.isDone(interrupted)).toBe(true)
      expect(server.retries().length).toBe(1)
    }))

  it.effect("a further input_required round moves the same record to round 2, pending again", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory))
      const server = scriptedServer([inputRequired("s1"), inputRequired("s2", "city"), done("two rounds")])
      const caller = yield* Effect.fork(call(service, server))
      const [first] = yield* pending(service)
      const answering = yield* Effect.fork(service.answer(first!.id, { name: accept }, { client: clientOf(server) }))
      const second = yield* Effect.zipRight(Effect.yieldNow(), service.list()).pipe(
        Effect.filterOrFail((list) => list[0]?.round === 2),
        Effect.retry({ times: 10_000 }),
        Effect.map((list) => list[0]!)
      )
      expect(second).toMatchObject({ id: first!.id, requestState: "s2", state: "Pending" })
      expect(Object.keys(second.inputRequests)).toEqual(["city"])
      const city = { action: "accept", content: { name: "Oslo" } }
      expect(yield* service.answer(first!.id, { city }, { client: clientOf(server) })).toEqual(done("two rounds"))
      expect(yield* Fiber.join(answering)).toEqual(done("two rounds"))
      expect(yield* Fiber.join(caller)).toEqual(done("two rounds"))
      expect(server.retries().map((p) => p!.requestState)).toEqual(["s1", "s2"])
      expect(yield* service.list({ state: "All" })).toHaveLength(1)
    }))

  it.effect("expiry (TestClock): the waiting call fails, a late answer gets ContinuationExpired, cleanup removes it", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(
        yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory),
        { ttl: 60_000 }
      )
      const server = scriptedServer([inputRequired("s1"), done("too late")])
      const caller = yield* Effect.fork(call(service, server))
      const [record] = yield* pending(service)
      yield* TestClock.adjust("59 seconds")
      expect(yield* service.list()).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(Fiber.join(caller))
      expect(error).toMatchObject({ _tag: "RequestCancelled", method: "tools/call" })
      const late = yield* Effect.flip(service.answer(record!.id, { name: accept }, { client: clientOf(server) }))
      expect(late).toMatchObject({ _tag: "ContinuationExpired", id: record!.id })
      expect(server.retries()).toEqual([])
      expect(yield* service.cleanup).toBe(1)
      expect(yield* service.get(record!.id)).toEqual(Option.none())
    }))

  it.effect("claimed by a process that died before storing the outcome: the waiting call fails with OutcomeUnknown (TestClock)", () =>
    Effect.gen(function*() {
      const store = yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory)
      const service = yield* Continuations.make(store, { ttl: 60_000 })
      const server = scriptedServer([inputRequired("s1")])
      const caller = yield* Effect.fork(call(service, server))
      const [record] = yield* pending(service)
      // another process claims it (one compare-and-set), then dies before its retry is answered
      const records = store.collection("mcp-continuations")
      const raw = Option.getOrThrow(yield* records.get(record!.id))
      const claimed = JSON.stringify({ ...JSON.parse(raw), state: "Answered", expiresAt: 60_000 })
      expect(yield* records.compareAndSet(record!.id, Option.some(raw), claimed)).toBe(true)
      yield* TestClock.adjust("59 seconds")
      expect(Option.isNone(yield* Fiber.poll(caller))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(caller))).toMatchObject({ _tag: "OutcomeUnknown", method: "tools/call" })
      expect(server.retries()).toEqual([])
    }))

  it.effect("expire gives a pending continuation up at once", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory))
      const server = scriptedServer([inputRequired("s1")])
      const caller = yield* Effect.fork(call(service, server))
      const [record] = yield* pending(service)
      expect(yield* service.expire(record!.id)).toBe(true)
      expect(yield* Effect.flip(Fiber.join(caller))).toMatchObject({ _tag: "RequestCancelled" })
      expect(yield* service.expire(record!.id)).toBe(false)
    }))

  it.effect("made for an identity: another identity is refused; a Redacted identity is stored as a digest only", () =>
    Effect.gen(function*() {
      const store = yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory)
      const service = yield* Continuations.make(store)
      const server = scriptedServer([inputRequired("s1"), done("for alice")])
      const secret = Redacted.make("session-secret-of-alice")
      const caller = yield* Effect.fork(Continuations.withIdentity(call(service, server), secret))
      const [record] = yield* pending(service)
      expect(record!.identity).toMatch(/^sha256:[0-9a-f]{64}$/)
      const raw = yield* store.collection("mcp-continuations").list
      expect(JSON.stringify(raw)).not.toContain("session-secret-of-alice")
      expect(yield* service.list({ identity: "bob" })).toEqual([])
      expect(yield* service.list({ identity: secret })).toHaveLength(1)
      const refused = yield* Effect.flip(
        service.answer(record!.id, { name: accept }, { client: clientOf(server), identity: "bob" })
      )
      expect(refused).toMatchObject({ _tag: "ContinuationForbidden" })
      const anonymous = yield* Effect.flip(service.answer(record!.id, { name: accept }, { client: clientOf(server) }))
      expect(anonymous).toMatchObject({ _tag: "ContinuationForbidden" })
      expect(server.retries()).toEqual([])
      const result = yield* service.answer(record!.id, { name: accept }, {
        client: clientOf(server),
        identity: Redacted.make("session-secret-of-alice")
      })
      expect(result).toEqual(done("for alice"))
      expect(yield* Fiber.join(caller)).toEqual(done("for alice"))
    }))

  it.effect("a hostile server's huge requestState is refused with a DecodeError (TooLarge) and nothing is stored", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(
        yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory),
        { maxRequestStateLength: 1024 }
      )
      const server = scriptedServer([inputRequired("x".repeat(1025))])
      const error = yield* Effect.flip(call(service, server))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "TooLarge", method: "tools/call" })
      expect(yield* service.list({ state: "All" })).toEqual([])
      const huge = scriptedServer([{ resultType: "input_required", inputRequests: { a: ask("y".repeat(300_000)) } }])
      expect(yield* Effect.flip(call(service, huge))).toMatchObject({ _tag: "DecodeError", reason: "TooLarge" })
      expect(yield* service.list({ state: "All" })).toEqual([])
    }))

  it.effect("an unknown id is ContinuationNotFound", () =>
    Effect.gen(function*() {
      const service = yield* Continuations.make(yield* Effect.provide(SharedStore.SharedStore, SharedStore.layerMemory))
      const error = yield* Effect.flip(
        service.answer("nope", {}, { client: clientOf(scriptedServer([done("x")])) })
      )
      expect(error).toMatchObject({ _tag: "ContinuationNotFound", id: "nope" })
    }))
})

// two services on one store, as two parts of one process have (the other backends: hub and kv-redis tests)
continuationsContract(
  "memory",
  Layer.effect(Pair, Effect.map(SharedStore.SharedStore, (store) => ({ a: store, b: store }))).pipe(
    Layer.provide(SharedStore.layerMemory)
  )
)
