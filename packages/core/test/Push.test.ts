import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { batchInOrder, clientInfo, textResult } from "./utils.js"

/**
 * A transport with only the push fast path: it answers each request in the
 * send itself, a `tools/call` with a log notification and the response in
 * one batch.
 */
const pushOnly = Layer.succeed(McpTransport.McpTransport, {
  connections: Stream.concat(
    Stream.suspend(() => {
      let deliver: ((messages: ReadonlyArray<JsonRpc.Incoming>) => void) | undefined
      const connection: McpTransport.Connection = {
        description: "push-only",
        incoming: Stream.die("the session must use push"),
        push: (onMessages) =>
          Effect.async<void>(() => {
            deliver = onMessages
          }),
        send: (message) =>
          Effect.sync(() => {
            if (!JsonRpc.isRequest(message)) return
            if (message.method === "initialize") {
              deliver!([JsonRpc.success(message.id, {
                protocolVersion: "2025-11-25",
                capabilities: { tools: {}, logging: {} },
                serverInfo: { name: "push", version: "1" }
              })])
            } else {
              deliver!([
                JsonRpc.notification("notifications/message", { level: "info", data: "before the result" }),
                JsonRpc.success(message.id, textResult("done"))
              ])
            }
          })
      }
      return Stream.make(connection)
    }),
    Stream.never
  )
})

describe("the push fast path", () => {
  it.effect("delivers a batch in order: a notification before the response it precedes", () =>
    batchInOrder.pipe(Effect.provide(McpClient.layer({ clientInfo, prefetch: false }).pipe(Layer.provide(pushOnly)))))
})

describe("a transport without the push fast path", () => {
  /** The TestServer's transport with `push` removed: the session must read `incoming`. */
  const streamOnly = Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (transport) => ({
      connections: Stream.map(transport.connections, ({ push: _, ...connection }) => connection)
    }))
  ).pipe(Layer.provideMerge(TestServer.layer({
    capabilities: { tools: {}, logging: {} },
    handlers: { "tools/call": () => Effect.succeed(textResult("streamed")) }
  })))

  it.effect("is read through its incoming stream", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const server = yield* TestServer.TestServer
      yield* client.initialized
      const log = yield* Effect.fork(client.logMessages.pipe(Stream.runHead))
      yield* Effect.yieldNow()
      yield* server.notify("notifications/message", { level: "info", data: "hi" })
      expect(yield* client.callTool({ name: "x" })).toEqual(textResult("streamed"))
      expect(yield* Fiber.join(log)).toEqual(Option.some({ level: "info", data: "hi" }))
    }).pipe(Effect.provide(McpClient.layer({ clientInfo, prefetch: false }).pipe(Layer.provideMerge(streamOnly)))))
})
