import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
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
