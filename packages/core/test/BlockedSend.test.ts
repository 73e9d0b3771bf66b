import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import {
  clientInfo,
  clientLayer,
  eventually,
  idleTimeout,
  interruptAtEveryStep,
  receivedWith,
  textResult
} from "./utils.js"

/**
 * A transport whose send of `tools/call` blocks the way an HTTP POST waits
 * for response headers: with `deliver`, the request reaches the server first.
 */
const blockingCalls = (deliver: boolean) => {
  const interrupted: Array<string> = []
  const block = (connection: McpTransport.Connection): McpTransport.Connection => ({
    ...connection,
    send: (message) =>
      JsonRpc.isRequest(message) && message.method === "tools/call" ?
        Effect.zipRight(
          deliver ? connection.send(message) : Effect.void,
          Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted.push(message.method))))
        ) :
        connection.send(message)
  })
  const transport = Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (inner) => ({ connections: Stream.map(inner.connections, block) }))
  )
  const layer = McpClient.layer({ clientInfo, prefetch: false }).pipe(
    Layer.provide(transport),
    Layer.provideMerge(TestServer.layer({ handlers: { "tools/call": () => Effect.succeed(textResult("done")) } }))
  )
  return { interrupted, layer }
}

describe("a request whose send is still blocked", () => {
  const idle = blockingCalls(false)
  it.effect("times out on its idle budget, interrupts the send and tells the server", () =>
    Effect.gen(function*() {
      yield* idleTimeout
      yield* eventually(Effect.sync(() => idle.interrupted.length === 1))
    }).pipe(Effect.provide(idle.layer)))

  const total = blockingCalls(false)
  it.effect("times out on its hard maximum", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(
        client.callTool({ name: "x" }, { timeout: "none", maxTotalTimeout: "5 seconds" })
      )
      yield* TestClock.adjust("5 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toEqual(new McpError.RequestTimeout({ method: "tools/call", kind: "total", millis: 5000 }))
      yield* eventually(Effect.sync(() => total.interrupted.length === 1))
      yield* eventually(Effect.map(receivedWith("notifications/cancelled"), (l) => l.length === 1))
    }).pipe(Effect.provide(total.layer)))

  const answered = blockingCalls(true)
  it.effect("returns as soon as the answer arrives, interrupts the send, and cancels nothing", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "x" })
      expect(result).toEqual(textResult("done"))
      yield* eventually(Effect.sync(() => answered.interrupted.length === 1))
      expect(yield* receivedWith("notifications/cancelled")).toEqual([])
    }).pipe(Effect.provide(answered.layer)))

  it.effect("a request waiting for a connection times out on time", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.dropConnection
      yield* eventually(Effect.map(client.state.get, (s) => s._tag === "Reconnecting"))
      const fiber = yield* Effect.fork(client.session.request("ping", undefined, { timeout: "2 seconds" }))
      yield* TestClock.adjust("2 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toEqual(new McpError.RequestTimeout({ method: "ping", kind: "idle", millis: 2000 }))
    }).pipe(Effect.provide(clientLayer({ reconnect: { schedule: Schedule.spaced("1 minute") } }))))

  it.effect("interrupting calls at any point leaves no pending entry behind", () =>
    interruptAtEveryStep.pipe(Effect.provide(clientLayer({ handlers: { "tools/call": () => Effect.never } }))))
})
