/**
 * The pending table's state machine (`internal/session/pending.ts`, `request.ts`), event by
 * event, on a connection that records what it is given.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import type { Live } from "../src/internal/session/link.js"
import * as Pending from "../src/internal/session/pending.js"
import type * as Request from "../src/internal/session/request.js"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"

/** A live connection recording every message sent on it; `sendNow` takes them at once unless `inline` is false. */
const makeLive = (generation: number, inline = true, fail?: McpTransport.ConnectionError) => {
  const sent: Array<JsonRpc.Message> = []
  const connection: McpTransport.Connection = {
    inbound: McpTransport.makeInboundBuffer(1),
    description: `test ${generation}`,
    send: (message) => fail !== undefined ? Effect.fail(fail) : Effect.sync(() => void sent.push(message)),
    sendNow: inline ?
      (message) => {
        sent.push(message)
        return true
      } :
      undefined
  }
  const live: Live = { connection, generation, alive: true }
  return { live, sent }
}

/** Starts a request on `live` (or with no connection yet), returning its fiber and its table entry. */
const start = (
  pending: Pending.PendingTable,
  live: Live | undefined,
  method = "tools/call",
  options?: { readonly replay?: boolean }
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(
      Effect.withFiberRuntime<unknown, McpError.McpClientError>((self) =>
        pending.request(
          method,
          { name: "echo" },
          options,
          undefined,
          (entry) => live === undefined ? Effect.never : pending.sendOn(entry, live),
          live,
          self
        )
      )
    )
    yield* Effect.yieldNow()
    return fiber
  })

const idOf = (message: JsonRpc.Message | undefined) => (message as JsonRpc.Request).id

const withTable = <A, E>(f: (pending: Pending.PendingTable) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.flatMap(Effect.clockWith((clock) => Pending.make({ clock, defaultIdle: 1_000, defaultTotal: undefined })), f)
  )

describe("a request's states", () => {
  it.effect("InFlight once sent, Settled when answered: the answer is its result and it leaves the table", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live, sent } = makeLive(1)
        const fiber = yield* start(pending, live)
        expect(sent).toHaveLength(1)
        const entry = pending.sentOn(idOf(sent[0]), live)!
        expect(entry.state._tag).toBe("InFlight")
        pending.answered(entry, Exit.succeed({ content: [] }))
        expect(yield* Fiber.join(fiber)).toEqual({ content: [] })
        expect(entry.state._tag).toBe("Settled")
        expect(pending.size()).toBe(0)
        // a second answer (late, duplicated) changes nothing
        pending.answered(entry, Exit.succeed("again"))
        expect((entry.state as Request.Settled).outcome).toEqual(Exit.succeed({ content: [] }))
      })
    ))

  it.effect("lost: a replayable request awaits a resend and is InFlight again on the next connection", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const first = makeLive(1)
        const fiber = yield* start(pending, first.live, "tools/list")
        const entry = pending.sentOn(idOf(first.sent[0]), first.live)!
        first.live.alive = false
        pending.lost(first.live, "gone")
        expect(entry.state._tag).toBe("AwaitingResend")
        expect(pending.sentOn(entry.id, first.live)).toBeUndefined()
        const second = makeLive(2)
        yield* pending.resendOn(second.live)
        expect(second.sent.map(idOf)).toEqual([entry.id])
        expect(entry.state).toEqual({ _tag: "InFlight", live: second.live })
        pending.answered(entry, Exit.succeed({ tools: [] }))
        expect(yield* Fiber.join(fiber)).toEqual({ tools: [] })
      })
    ))

  it.effect("lost: a request that may not be replayed settles with OutcomeUnknown", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live } = makeLive(1)
        const fiber = yield* start(pending, live)
        live.alive = false
        pending.lost(live, "gone")
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("OutcomeUnknown")
      })
    ))

  it.effect("send failed with SessionExpired: the server never ran it, so it awaits a resend (any method)", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live } = makeLive(1, false, new McpError.SessionExpired({ message: "unknown session" }))
        const fiber = yield* start(pending, live)
        const again = makeLive(2)
        yield* pending.resendOn(again.live)
        expect(again.sent).toHaveLength(1)
        pending.answered(pending.sentOn(idOf(again.sent[0]), again.live)!, Exit.succeed("ran once"))
        expect(yield* Fiber.join(fiber)).toBe("ran once")
      })
    ))

  it.effect("send failed on a connection still up: settled with the send's error", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const error = new McpError.TransportError({ reason: "Write", message: "refused" })
        const { live } = makeLive(1, false, error)
        const exit = yield* Fiber.await(yield* start(pending, live))
        expect(exit).toEqual(Exit.fail(error))
        expect(pending.size()).toBe(0)
      })
    ))

  it.effect("expired while in flight: RequestTimeout, and the server is told with notifications/cancelled", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live, sent } = makeLive(1)
        const fiber = yield* start(pending, live)
        yield* TestClock.adjust(1_000)
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("RequestTimeout")
        expect(sent[1]).toEqual(
          JsonRpc.notification("notifications/cancelled", { requestId: idOf(sent[0]), reason: "timeout" })
        )
      })
    ))

  it.effect("expired while queued (no connection came): RequestTimeout, and no notice (nothing was sent)", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const fiber = yield* start(pending, undefined)
        yield* TestClock.adjust(1_000)
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("RequestTimeout")
        expect(pending.size()).toBe(0)
      })
    ))

  it.effect("interrupted while in flight: settled, and the server is told; a late answer is ignored", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live, sent } = makeLive(1)
        const fiber = yield* start(pending, live)
        const entry = pending.sentOn(idOf(sent[0]), live)!
        yield* Fiber.interrupt(fiber)
        expect(entry.state._tag).toBe("Settled")
        expect(sent[1]).toEqual(
          JsonRpc.notification("notifications/cancelled", { requestId: entry.id, reason: "cancelled by the client" })
        )
        expect(pending.sentOn(entry.id, live)).toBeUndefined()
      })
    ))

  it.effect("initialize is never cancelled on the server", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live, sent } = makeLive(1)
        yield* Fiber.interrupt(yield* start(pending, live, "initialize"))
        expect(sent).toHaveLength(1)
      })
    ))

  it.effect("the session closed: every request settles with its error", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        const { live } = makeLive(1)
        const fibers = [yield* start(pending, live), yield* start(pending, undefined)]
        const error = new McpError.TransportError({ reason: "Closed", message: "closed" })
        pending.failAll(error)
        for (const fiber of fibers) expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(error))
        expect(pending.size()).toBe(0)
      })
    ))

  it.effect("a request the transport takes at once builds no send of its own; one it does not take is sent by it", () =>
    withTable((pending) =>
      Effect.gen(function*() {
        let built = 0
        const request = (live: Live) =>
          Effect.fork(
            Effect.withFiberRuntime<unknown, McpError.McpClientError>((self) =>
              pending.request(
                "tools/call",
                { name: "echo" },
                undefined,
                undefined,
                (entry) => {
                  built++
                  return pending.sendOn(entry, live)
                },
                live,
                self
              )
            )
          )
        const taken = makeLive(1)
        yield* request(taken.live)
        yield* Effect.yieldNow()
        expect(taken.sent).toHaveLength(1)
        expect(built).toBe(0)
        const notTaken = makeLive(2, false)
        yield* request(notTaken.live)
        yield* Effect.yieldNow()
        expect(notTaken.sent).toHaveLength(1)
        expect(built).toBe(1)
      })
    ))
})
