import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Fiber from "effect/Fiber"
import type * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, idleTimeout, interruptAtEveryStep, textResult } from "./utils.js"

const isToolCall = (message: JsonRpc.Message) => JsonRpc.isRequest(message) && message.method === "tools/call"

/**
 * The test server's transport, offering `sendNow` (a send that completes at
 * once) or not; it records which fiber sends each `tools/call`.
 */
const withSendNow = (
  atOnce: boolean,
  handler: () => Effect.Effect<unknown> = () => Effect.succeed(textResult("done"))
) => {
  const senders: Array<FiberId.FiberId> = []
  const mark = (connection: McpTransport.Connection): McpTransport.Connection => ({
    ...connection,
    // the in-memory queue takes a message at once: handed to it by a fiber of its own, recorded as sent by the caller
    sendNow: atOnce ?
      (message) => {
        if (isToolCall(message)) senders.push(Option.getOrThrow(Fiber.getCurrentFiber()).id())
        Effect.runFork(connection.send(message))
        return true
      } :
      undefined,
    send: (message) =>
      isToolCall(message) ?
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

describe("a connection whose send completes at once (sendNow)", () => {
  for (const atOnce of [true, false]) {
    const subject = withSendNow(atOnce)
    it.effect(
      atOnce ?
        "gets the request from the calling fiber, with no sender fiber" :
        "without it, the request is sent from a fiber of its own",
      () =>
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          yield* client.initialized
          const caller = yield* Effect.fiberId
          expect(yield* client.callTool({ name: "x" })).toEqual(textResult("done"))
          expect(subject.senders).toHaveLength(1)
          expect(Equal.equals(subject.senders[0], caller)).toBe(atOnce)
        }).pipe(Effect.provide(subject.layer))
    )
  }

  const silent = withSendNow(true, () => Effect.never)
  it.effect("a request sent inline still times out, and the server is told", () =>
    Effect.gen(function*() {
      const client = yield* idleTimeout
      expect(silent.senders).toHaveLength(1)
      expect((yield* client.session.stats).pending).toBe(0)
    }).pipe(Effect.provide(silent.layer)))

  const held = withSendNow(true, () => Effect.never)
  it.effect("interrupting inline calls at any point leaves no pending entry behind", () =>
    Effect.gen(function*() {
      yield* interruptAtEveryStep
      expect(held.senders.length).toBeGreaterThan(0)
    }).pipe(Effect.provide(held.layer)))
})
