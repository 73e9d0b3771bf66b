import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as McpClient from "../src/McpClient.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo } from "./utils.js"

/** A transport that records what the session sends and the hand-offs it makes, in order. */
const recording = (era?: TestServer.Options["era"]) => {
  const events: Array<string> = []
  const record = (connection: McpTransport.Connection): McpTransport.Connection => ({
    ...connection,
    send: (message) =>
      Effect.zipRight(
        Effect.sync(() => events.push("method" in message ? `send ${message.method}` : "send a response")),
        connection.send(message)
      ),
    // the version, the era and how a request is given up (the codec's), in that order
    negotiated: (info) => Effect.sync(() => events.push(`negotiated ${Object.values(info).join(" ")}`)),
    ready: Effect.sync(() => events.push("ready"))
  })
  const transport = Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (inner) => ({ connections: Stream.map(inner.connections, record) }))
  )
  const layer = McpClient.layer({ clientInfo, prefetch: false }).pipe(
    Layer.provide(transport),
    Layer.provideMerge(TestServer.layer({ era }))
  )
  return { events, layer }
}

describe("the session's hand-off to its transport", () => {
  const run = recording()
  it.effect("names the negotiated version before notifications/initialized, and is ready before any request", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      // asked for at once: it goes out only once the connection is ready
      yield* client.ping
      expect(run.events).toEqual([
        "send server/discover", // the probe of the modern era, which this server does not speak
        "send initialize",
        "negotiated 2025-11-25 legacy notice",
        "send notifications/initialized",
        "ready",
        "send ping"
      ])
    }).pipe(Effect.provide(run.layer)))

  const modern = recording("modern")
  it.effect("with a modern server: the version agreed by server/discover, then ready, then requests", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* Effect.either(client.listTools) // answered -32601: only the order of what was sent matters here
      expect(modern.events).toEqual([
        "send server/discover",
        "negotiated 2026-07-28 modern stream",
        "ready",
        "send tools/list"
      ])
    }).pipe(Effect.provide(modern.layer)))
})
