import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as McpClient from "../src/McpClient.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo } from "./utils.js"

/** What the era codec told the transport with a message: its kind, its version, its `Mcp-Method` header. */
const told = (options: McpTransport.SendOptions | undefined) => {
  const said = [options?.kind, options?.protocolVersion, options?.headers?.["mcp-method"]].filter((x) =>
    x !== undefined
  )
  return said.length === 0 ? "" : ` [${said.join(" ")}]`
}

/** A transport that records what the session sends (with its send options) and the hand-offs it makes, in order. */
const recording = (era?: TestServer.Options["era"]) => {
  const events: Array<string> = []
  const record = (connection: McpTransport.Connection): McpTransport.Connection => ({
    ...connection,
    send: (message, options) =>
      Effect.zipRight(
        Effect.sync(() =>
          events.push("method" in message ? `send ${message.method}${told(options)}` : "send a response")
        ),
        connection.send(message, options)
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
  it.effect("names the negotiated version before notifications/initialized, is ready before any request, and says what each message is", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      // asked for at once: it goes out only once the connection is ready
      yield* client.ping
      expect(run.events).toEqual([
        // the probe of the modern era, which this server does not speak, under the version it offers
        "send server/discover [2026-07-28 server/discover]",
        "send initialize [initialize]",
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
        "send server/discover [2026-07-28 server/discover]",
        "negotiated 2026-07-28 modern stream",
        "ready",
        "send tools/list [2026-07-28 tools/list]"
      ])
    }).pipe(Effect.provide(modern.layer)))
})
