import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { batchInOrder, clientInfo, eventually, idleTimeout, receivedWith, reconnect, textResult } from "./utils.js"

/** What a callback-driven connection's test double records. */
interface Wire {
  /** Connections whose `listen` was stopped. */
  stopped: number
  /** Connections opened. */
  opened: number
}

/**
 * A transport with only `listen`: no stream, no `push`. It answers each request in the send itself,
 * a `tools/call` with a log notification and the response in one batch. The first connection ends
 * (cleanly) when `initialize` is sent (`"on initialize"`), or in `listen` itself, before it returns
 * (`"at once"`).
 */
const listenOnly = (wire: Wire, endFirst?: "on initialize" | "at once") =>
  Layer.succeed(McpTransport.McpTransport, {
    connections: McpTransport.fromConnect(
      Effect.sync(() => {
        const generation = ++wire.opened
        let deliver: ((messages: ReadonlyArray<JsonRpc.Incoming>) => void) | undefined
        let end: ((end: Effect.Effect<void, McpTransport.ConnectionError>) => void) | undefined
        const connection: McpTransport.Connection = {
          description: "listen-only",
          incoming: Stream.die("the session must use listen"),
          push: () => Effect.die("the session must use listen"),
          listen: (onMessages, onEnd) => {
            deliver = onMessages
            end = onEnd
            if (endFirst === "at once" && generation === 1) onEnd(Effect.void)
            return () => {
              wire.stopped++
              deliver = undefined
              end = undefined
            }
          },
          send: (message) =>
            Effect.sync(() => {
              if (!JsonRpc.isRequest(message)) return
              if (message.method === "initialize") {
                if (endFirst === "on initialize" && generation === 1) return end!(Effect.void)
                return deliver!([JsonRpc.success(message.id, {
                  protocolVersion: "2025-11-25",
                  capabilities: { tools: {}, logging: {} },
                  serverInfo: { name: "listen", version: "1" }
                })])
              }
              deliver!([
                JsonRpc.notification("notifications/message", { level: "info", data: "before the result" }),
                JsonRpc.success(message.id, textResult("done"))
              ])
            })
        }
        return connection
      })
    )
  })

/**
 * The TestServer's transport with `push` turned into `listen`: a fiber of the test (not the
 * session's) runs `push` and hands its end to `onEnd`; stopping interrupts it.
 */
const listenOverTestServer = (server: TestServer.Options) =>
  Layer.effect(
    McpTransport.McpTransport,
    Effect.gen(function*() {
      const transport = yield* McpTransport.McpTransport
      const runtime = yield* Effect.runtime<never>()
      return {
        connections: Stream.map(transport.connections, ({ push, ...connection }): McpTransport.Connection => ({
          ...connection,
          incoming: Stream.die("the session must use listen"),
          listen: (onMessages, onEnd) => {
            const fiber = Runtime.runFork(runtime)(
              Effect.exit(push!(onMessages)).pipe(Effect.flatMap((exit) => Effect.sync(() => onEnd(exit))))
            )
            return () => fiber.unsafeInterruptAsFork(fiber.id())
          }
        }))
      }
    })
  ).pipe(Layer.provideMerge(TestServer.layer(server)))

const echoServer: TestServer.Options = {
  capabilities: { tools: {}, logging: {} },
  handlers: {
    "tools/call": (ctx) => ctx.params.name === "x" ? Effect.never : Effect.succeed(textResult("listened"))
  }
}

/** A client over the echo TestServer, its transport reading through `listen`. */
const listenClient = McpClient.layer({ clientInfo, prefetch: false }).pipe(
  Layer.provideMerge(listenOverTestServer(echoServer))
)

const over = (transport: Layer.Layer<McpTransport.McpTransport>) =>
  McpClient.layer({ clientInfo, prefetch: false }).pipe(Layer.provide(transport))

describe("a transport with listen", () => {
  it.effect("delivers a batch in order, and the session stops listening when it closes", () => {
    const wire: Wire = { stopped: 0, opened: 0 }
    return Effect.gen(function*() {
      yield* batchInOrder.pipe(
        Effect.zipRight(Effect.sync(() => expect(wire.stopped).toBe(0))),
        Effect.provide(over(listenOnly(wire)))
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
      }).pipe(Effect.provide(over(listenOnly(wire, endFirst))))
    })
  }

  it.effect("a lost connection is noticed from its end callback, and the session reconnects", () =>
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
