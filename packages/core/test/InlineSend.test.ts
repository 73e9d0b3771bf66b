import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Fiber from "effect/Fiber"
import type * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, eventually, receivedWith, textResult } from "./utils.js"

/**
 * The test server's transport, saying through `sendsAtOnce` whether its
 * send completes at once; it records which fiber sends each `tools/call`.
 */
const withSendsAtOnce = (atOnce: boolean, handler: () => Effect.Effect<unknown> = () => Effect.succeed(textResult("done"))) => {
  const senders: Array<FiberId.FiberId> = []
  const mark = (connection: McpTransport.Connection): McpTransport.Connection => ({
    ...connection,
    sendsAtOnce: () => atOnce,
    send: (message) =>
      JsonRpc.isRequest(message) && message.method === "tools/call" ?
        Effect.zipRight(Effect.fiberIdWith((id) => Effect.sync(() => senders.push(id))), connection.send(message)) :
        connection.send(message)
  })
  const transport = Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (inner) => ({ connections: Stream.map(inner.connections, mark) }))
  )
  const layer = McpClient.layer({ clientInfo, prefetch: false }).pipe(
    Layer.provide(transport),
    Layer.provideMerge(TestServer.layer({ handlers: { "tools/call": handler } }))
  )
  return { senders, layer }
}

describe("a connection whose send completes at once (sendsAtOnce)", () => {
  const inline = withSendsAtOnce(true)
  it.effect("gets the request from the calling fiber, with no sender fiber", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const caller = yield* Effect.fiberId
      expect(yield* client.callTool({ name: "x" })).toEqual(textResult("done"))
      expect(inline.senders).toHaveLength(1)
      expect(Equal.equals(inline.senders[0], caller)).toBe(true)
    }).pipe(Effect.provide(inline.layer)))

  const forked = withSendsAtOnce(false)
  it.effect("without it, the request is sent from a fiber of its own", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const caller = yield* Effect.fiberId
      expect(yield* client.callTool({ name: "x" })).toEqual(textResult("done"))
      expect(forked.senders).toHaveLength(1)
      expect(Equal.equals(forked.senders[0], caller)).toBe(false)
    }).pipe(Effect.provide(forked.layer)))

  const silent = withSendsAtOnce(true, () => Effect.never)
  it.effect("a request sent inline still times out, and the server is told", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "x" }, { timeout: "2 seconds" }))
      yield* TestClock.adjust("1999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toEqual(new McpError.RequestTimeout({ method: "tools/call", kind: "idle", millis: 2000 }))
      const [cancelled] = yield* eventually(Effect.map(receivedWith("notifications/cancelled"), (l) => l.length > 0 && l))
      expect(cancelled.params).toMatchObject({ reason: "timeout" })
      expect((yield* client.session.stats).pending).toBe(0)
    }).pipe(Effect.provide(silent.layer)))

  const held = withSendsAtOnce(true, () => Effect.never)
  it.effect("interrupting inline calls at any point leaves no pending entry behind", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      for (let yields = 0; yields < 30; yields++) {
        const fiber = yield* Effect.fork(client.session.request("tools/call", { name: "x" }))
        for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
        yield* Fiber.interrupt(fiber)
      }
      yield* eventually(Effect.map(client.session.stats, (s) => s.pending === 0))
      expect(held.senders.length).toBeGreaterThan(0)
    }).pipe(Effect.provide(held.layer)))
})
