/**
 * The contract `Continuations` meets on every `SharedStore` backend, as one
 * suite registered per backend: two services on two instances of the
 * backend (as two processes or tabs have). A call waiting in one is answered
 * from the other and completes once; two answers at once, one wins.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Continuations from "../../src/Continuations.js"
import { Pair } from "../sharedStore/contract.js"
import { accept, call, clientOf, done, inputRequired, scriptedServer } from "./fixtures.js"

let collections = 0
const fresh = () => `continuations-${Date.now().toString(36)}-${collections++}`

/** Both services, on one fresh collection. */
const services = Effect.gen(function*() {
  const { a, b } = yield* Pair
  const collection = fresh()
  return {
    a: yield* Continuations.make(a, { collection }),
    b: yield* Continuations.make(b, { collection })
  }
})

/** What `service` lists, once there is something (another instance's write arrives when it arrives). */
const listed = (service: Continuations.Service) =>
  service.list().pipe(
    Effect.filterOrFail((list) => list.length > 0),
    Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo("5 seconds"))),
    Effect.orDie
  )

export const continuationsContract = <E>(name: string, pair: Layer.Layer<Pair, E>) =>
  // real time: the records of another instance arrive when they arrive
  layer(pair, { timeout: 30_000, excludeTestServices: true })(`Continuations contract: ${name}`, (it) => {
    it.effect("a call waiting in one instance is listed and answered by the other, and completes once", () =>
      Effect.gen(function*() {
        const { a, b } = yield* services
        const server = scriptedServer([inputRequired("s1"), done("answered by b")])
        const caller = yield* Effect.fork(call(a, server))
        const [record] = yield* listed(b)
        expect(record).toMatchObject({ server: "weather", requestState: "s1", state: "Pending" })
        expect(yield* b.answer(record!.id, { name: accept }, { client: clientOf(server) })).toEqual(
          done("answered by b")
        )
        expect(yield* Fiber.join(caller)).toEqual(done("answered by b"))
        expect(server.retries()).toHaveLength(1)
      }))

    it.effect("two instances answer at once: one answer is sent, the other is ContinuationAlreadyAnswered", () =>
      Effect.gen(function*() {
        const { a, b } = yield* services
        const server = scriptedServer([inputRequired("s1"), done("once")])
        const caller = yield* Effect.fork(call(a, server))
        const [record] = yield* listed(b)
        yield* listed(a)
        const results = yield* Effect.all(
          [a, b].map((service) =>
            Effect.either(service.answer(record!.id, { name: accept }, { client: clientOf(server) }))
          ),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Either.isRight)).toHaveLength(1)
        expect(results.filter(Either.isLeft).map((r) => r.left._tag)).toEqual(["ContinuationAlreadyAnswered"])
        expect(server.retries()).toHaveLength(1)
        expect(yield* Fiber.join(caller)).toEqual(done("once"))
      }))
  })
