import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { batchInOrder, clientInfo, eventually, idleTimeout, receivedWith, reconnect, textResult } from "./utils.js"

/** What the test double records. */
interface Wire {
  /** Connections whose inbound buffer the session stopped listening to. */
  stopped: number
  /** Connections opened. */
  opened: number
}

/**
 * A transport that answers each request in the send itself, offering into its inbound buffer: a
 * `tools/call` with a log notification and the response in one batch. The first connection ends
 * (cleanly) when `initialize` is sent (`"on initialize"`), or before the session listens
 * (`"at once"`).
 */
const answeringInSend = (wire: Wire, endFirst?: "on initialize" | "at once") =>
  Layer.succeed(McpTransport.McpTransport, {
    connections: McpTransport.fromConnect(
      Effect.sync(() => {
        const generation = ++wire.opened
        const buffer = McpTransport.makeInboundBuffer(16)
        if (endFirst === "at once" && generation === 1) buffer.end()
        const connection: McpTransport.Connection = {
          description: "answering in send",
          inbound: {
            listen: (onMessages, onEnd) => {
              const stop = buffer.listen(onMessages, onEnd)
              return () => {
                wire.stopped++
                stop()
              }
            }
          },
          send: (message) =>
            Effect.sync(() => {
              if (!JsonRpc.isRequest(message)) return
              if (message.method === "initialize") {
                if (endFirst === "on initialize" && generation === 1) return buffer.end()
                return void buffer.offerNow([JsonRpc.success(message.id, {
                  protocolVersion: "2025-11-25",
                  capabilities: { tools: {}, logging: {} },
                  serverInfo: { name: "inbound", version: "1" }
                })])
              }
              buffer.offerNow([
                JsonRpc.notification("notifications/message", { level: "info", data: "before the result" }),
                JsonRpc.success(message.id, textResult("done"))
              ])
            })
        }
        return connection
      })
    )
  })

const echoServer: TestServer.Options = {
  capabilities: { tools: {}, logging: {} },
  handlers: {
    "tools/call": (ctx) => ctx.params.name === "x" ? Effect.never : Effect.succeed(textResult("listened"))
  }
}

/** A client over the echo TestServer. */
const listenClient = McpClient.layer({ clientInfo, prefetch: false }).pipe(
  Layer.provideMerge(TestServer.layer(echoServer))
)

const over = (transport: Layer.Layer<McpTransport.McpTransport>) =>
  McpClient.layer({ clientInfo, prefetch: false }).pipe(Layer.provide(transport))

describe("the one inbound path: the session listens to the connection's inbound buffer", () => {
  it.effect("delivers a batch in order, and the session stops listening when it closes", () => {
    const wire: Wire = { stopped: 0, opened: 0 }
    return Effect.gen(function*() {
      yield* batchInOrder.pipe(
        Effect.zipRight(Effect.sync(() => expect(wire.stopped).toBe(0))),
        Effect.provide(over(answeringInSend(wire)))
      )
      // the session's end stopped the listening: nothing is called after it
      expect(wire.stopped).toBe(1)
    })
  })

  for (const endFirst of ["on initialize", "at once"] as const) {
    it.effect(`a connection that ends ${endFirst} (before it is ready) is followed by the next one`, () => {
      const wire: Wire = { stopped: 0, opened: 0 }
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const initialized = yield* Effect.fork(client.initialized)
        yield* TestClock.adjust("1 second")
        expect((yield* Fiber.join(initialized)).generation).toBe(2)
        expect(wire.opened).toBe(2)
        expect(yield* client.callTool({ name: "anything" })).toEqual(textResult("done"))
      }).pipe(Effect.provide(over(answeringInSend(wire, endFirst))))
    })
  }

  it.effect("a lost connection is noticed from the buffer's end, and the session reconnects", () =>
    reconnect.pipe(
      Effect.zipRight(Effect.flatMap(McpClient.McpClient, (client) => client.callTool({ name: "y" }))),
      Effect.map((result) => expect(result).toEqual(textResult("listened"))),
      Effect.provide(listenClient)
    ))

  it.effect("a request on a connection that is lost fails with OutcomeUnknown", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const server = yield* TestServer.TestServer
      yield* client.initialized
      const call = yield* Effect.fork(client.callTool({ name: "x" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (calls) => calls.length > 0))
      yield* server.dropConnection
      const error = yield* Effect.flip(Fiber.join(call))
      expect(error).toBeInstanceOf(McpError.OutcomeUnknown)
    }).pipe(
      Effect.provide(listenClient)
    ))

  it.effect("request timeouts run on the TestClock", () =>
    idleTimeout.pipe(
      Effect.provide(listenClient)
    ))
})
