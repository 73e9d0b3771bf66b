// McpClient over NodeWebSocketTransport against the official SDK's McpServer
// on a real WebSocket server (127.0.0.1): the whole session, then what a lost
// connection does to it.
import { describe, expect, it } from "@effect/vitest"
import { type ClientSession, McpClient, McpError, type McpSchema } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { NodeWebSocketTransport } from "../src/node.js"
import { awaitSleepUntil, closedPort, resource, waitFor } from "./fixtures/harness.js"
import { startWsServer, type WsServer } from "./fixtures/sdkWebSocketServer.js"

// the session warns about each lost connection: expected here
const quiet = Logger.remove(Logger.defaultLogger)

const clientOver = (options: NodeWebSocketTransport.Options) =>
  McpClient.layer({ clientInfo: { name: "ws-test", version: "1.0.0" }, prefetch: false }).pipe(
    Layer.provide(NodeWebSocketTransport.layer(options)),
    Layer.provide(quiet)
  )

/** Runs `body` with a client of a fresh server. */
const withClient = <A, E>(
  body: (client: McpClient.Service, server: WsServer) => Effect.Effect<A, E, Scope.Scope>,
  options: Omit<NodeWebSocketTransport.Options, "url"> = {}
) =>
  Effect.gen(function*() {
    const server = yield* resource(() => startWsServer())
    return yield* Effect.flatMap(McpClient.McpClient, (client) => body(client, server)).pipe(
      Effect.provide(clientOver({ url: server.url, ...options }))
    )
  })

const methods = (server: WsServer) => server.received.map((m) => m.method)
const text = (result: McpSchema.CallToolResult) => (result.content[0] as { readonly text: string }).text

// a quick reconnect, so the tests wait on events rather than on the default backoff
const fastReconnect = {
  reconnect: { schedule: Schedule.spaced("20 millis").pipe(Schedule.intersect(Schedule.recurs(5))) }
}

describe("McpClient over WebSocket (official SDK server)", () => {
  it.scopedLive("connects with subprotocol mcp and the handshake headers, lists and calls a tool", () =>
    withClient((client, server) =>
      Effect.gen(function*() {
        const initialized = yield* client.initialized
        expect(initialized.serverInfo.name).toBe("ws-fixture")
        const tools = yield* client.listTools
        expect(tools.map((tool) => tool.name).sort()).toEqual(["echo", "slow"])
        const result = yield* client.callTool({ name: "echo", arguments: { text: "over a websocket" } })
        expect(text(result)).toBe("over a websocket")
        // the server/discover probe first: this SDK v1 server is legacy, so initialize follows
        expect(methods(server)).toEqual([
          "server/discover",
          "initialize",
          "notifications/initialized",
          "tools/list",
          "tools/call"
        ])
        expect(server.handshakes).toHaveLength(1)
        expect(server.handshakes[0]!["sec-websocket-protocol"]).toBe("mcp")
        expect(server.handshakes[0]!.authorization).toBe("Bearer s3cret")
      }), { headers: { authorization: Redacted.make("Bearer s3cret") } }))

  it.scopedLive("progress reaches the caller; interrupting the call sends notifications/cancelled and the tool stops", () =>
    withClient((client, server) =>
      Effect.gen(function*() {
        const progress: Array<number> = []
        const call = yield* client.callTool({ name: "slow", arguments: { tag: "interrupted" } }, {
          onProgress: (p) => Effect.sync(() => progress.push(p.progress))
        }).pipe(Effect.fork)
        yield* waitFor("two progress notices", () => progress.length === 2)
        expect(progress).toEqual([1, 2])
        yield* Fiber.interrupt(call)
        yield* waitFor("the tool to see the cancellation", () => server.aborted.includes("interrupted"))
        const sent = server.received.find((m) => m.method === "tools/call") as { readonly id: number }
        const cancelled = server.received.find((m) => m.method === "notifications/cancelled")
        expect(cancelled?.params?.requestId).toBe(sent.id)
        // the session goes on over the same socket
        expect(text(yield* client.callTool({ name: "echo", arguments: { text: "still here" } }))).toBe("still here")
        expect(server.accepted()).toBe(1)
      })
    ))

  it.scopedLive("the server closes the socket: the retry is reported, the session reconnects and initializes again", () =>
    withClient((client, server) =>
      Effect.gen(function*() {
        yield* client.initialized
        const states: Array<ClientSession.ConnectionState> = []
        yield* client.state.changes.pipe(
          Stream.runForEach((state) => Effect.sync(() => states.push(state))),
          Effect.forkScoped
        )
        server.closeAll(1012, "service restart")
        yield* waitFor("a second socket", () => server.accepted() === 2)
        yield* waitFor("the session to be ready again", () => states.at(-1)?._tag === "Ready" && states.length > 1)
        // the retry was reported with its attempt and delay, and the close code as the reason
        const retry = states.find((state) => state._tag === "Reconnecting" && state.attempt === 1)
        expect(retry?._tag === "Reconnecting" && retry.nextDelay !== undefined).toBe(true)
        // the delay of the spaced schedule, less what the real clock already ran
        expect(Duration.toMillis((retry as { readonly nextDelay: Duration.Duration }).nextDelay)).toBeLessThanOrEqual(
          20
        )
        expect(states.find((state) => state._tag === "Reconnecting")).toMatchObject({
          reason: expect.stringContaining("1012 service restart: service restart")
        })
        const tools = yield* client.listTools
        expect(tools.map((tool) => tool.name)).toContain("echo")
        expect(methods(server).filter((m) => m === "initialize")).toHaveLength(2)
        expect(server.open()).toBe(1)
      }), fastReconnect))

  it.scopedLive("the socket closes during a tool call: the call fails with OutcomeUnknown and is not sent again", () =>
    withClient((client, server) =>
      Effect.gen(function*() {
        yield* client.initialized
        const call = yield* Effect.fork(Effect.flip(client.callTool({ name: "slow", arguments: { tag: "lost" } })))
        yield* waitFor("the tool to start", () => server.started.includes("lost"))
        server.closeAll(1011, "crashed")
        const error = yield* Fiber.join(call)
        expect(error).toBeInstanceOf(McpError.OutcomeUnknown)
        expect(error).toMatchObject({ method: "tools/call", toolName: "slow" })
        // the session is back, and the tool ran once
        expect(text(yield* client.callTool({ name: "echo", arguments: { text: "back" } }))).toBe("back")
        expect(server.started).toEqual(["lost"])
        expect(methods(server).filter((m) => m === "tools/call")).toHaveLength(2)
      }), fastReconnect))

  it.scopedLive("an answer over maxMessageBytes fails the read at once with the size error; it is not asked for again", () =>
    withClient((client, server) =>
      Effect.gen(function*() {
        yield* client.initialized
        // the tool list (two tools with their schemas) does not fit; initialize's answer does
        const error = yield* Effect.flip(client.listTools)
        expect(error).toMatchObject({ _tag: "TransportError", reason: "Read", phase: "message-size" })
        // asking again on the next connection would only bring the same answer, again too large
        expect(methods(server).filter((method) => method === "tools/list")).toHaveLength(1)
      }), { ...fastReconnect, maxMessageBytes: 400 }))

  it.scoped("a refused first connection closes the session within the first-connect budget (TestClock)", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const client = Context.get(
        yield* Layer.build(clientOver({ url: `ws://127.0.0.1:${port}/mcp` })),
        McpClient.McpClient
      )
      const initialized = yield* Effect.fork(Effect.flip(client.initialized))
      // the default first-connect budget: 100, 200, 400 ms (not the 8 attempts of the reconnect schedule)
      for (const at of [100, 300, 700]) {
        yield* awaitSleepUntil(at)
        yield* TestClock.setTime(at)
      }
      const error = yield* Fiber.join(initialized)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error).toMatchObject({ reason: "Exhausted" })
      expect(error.message).toContain("gave up after 4 connection attempts (no connection has worked yet)")
      expect(error.message).toContain("ECONNREFUSED")
      expect((error as McpError.TransportError).cause).toMatchObject({ reason: "Connect", phase: "open" })
    }))
})
