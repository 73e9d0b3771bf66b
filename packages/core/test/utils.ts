import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import type * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as TestServer from "../src/TestServer.js"

/** Lets other fibers run until `check` holds (no clock involved). */
export const eventually = <A, R>(
  check: Effect.Effect<A | undefined | false, never, R>,
  rounds = 200
): Effect.Effect<A, never, R> =>
  Effect.gen(function*() {
    for (let i = 0; i < rounds; i++) {
      const value = yield* check
      if (value !== undefined && value !== false) return value
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage("condition never held")
  })

export const clientInfo = { name: "test-client", version: "0.0.1" }

/** The client's state once it is reconnecting after a failed attempt. */
export const reconnecting = Effect.flatMap(
  McpClient.McpClient,
  (client) => eventually(Effect.map(client.state.get, (s) => s._tag === "Reconnecting" && s.attempt > 0 && s))
)

/** Drops the test server's connection and waits (1 s on the `TestClock`) for the second one to be ready. */
export const reconnect = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const test = yield* TestServer.TestServer
  yield* client.initialized
  yield* test.dropConnection
  yield* TestClock.adjust("1 second")
  expect((yield* client.initialized).generation).toBe(2)
})

/** A client over a `TestServer` with the given options. */
export const clientLayer = (
  server: TestServer.Options,
  client: Partial<McpClient.Options> = {}
): Layer.Layer<McpClient.McpClient | TestServer.TestServer> =>
  McpClient.layer({ clientInfo, prefetch: false, ...client }).pipe(
    Layer.provideMerge(TestServer.layer(server))
  )

export const receivedWith = (method: string) =>
  Effect.map(
    Effect.flatMap(TestServer.TestServer, (server) => server.received),
    (messages) =>
      messages.filter((m): m is JsonRpc.Request | JsonRpc.Notification => "method" in m && m.method === method)
  )

export const textResult = (text: string) => ({ content: [{ type: "text", text }] })

/**
 * Calls tool `x` with a 2 s idle budget on a server that does not answer: still running at
 * 1999 ms, failed with `RequestTimeout` at 2000 ms; resolves with the server's cancellation notice.
 */
export const idleTimeout = Effect.gen(function*() {
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
  return client
})

/**
 * Starts a `tools/call` 30 times and interrupts it after 0, 1, … 29 yields, so an interrupt lands
 * at every step of a request's life; then waits until nothing is pending.
 */
export const interruptAtEveryStep = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.initialized
  for (let yields = 0; yields < 30; yields++) {
    const fiber = yield* Effect.fork(client.session.request("tools/call", { name: "x" }))
    for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
    yield* Fiber.interrupt(fiber)
  }
  yield* eventually(Effect.map(client.session.stats, (s) => s.pending === 0))
})

/**
 * Calls a tool on a server that answers it with a log notification and the result in one batch
 * (`"before the result"`, then `textResult("done")`): the notification must come first.
 */
export const batchInOrder = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.initialized
  const seen: Array<string> = []
  const logs = yield* Effect.fork(
    client.logMessages.pipe(Stream.take(1), Stream.runForEach((m) => Effect.sync(() => seen.push(String(m.data)))))
  )
  yield* Effect.yieldNow()
  const result = yield* client.callTool({ name: "anything" })
  seen.push("result")
  yield* Fiber.join(logs)
  expect(result).toEqual(textResult("done"))
  expect(seen).toEqual(["before the result", "result"])
})
