// The registry with a WebSocket server: a `ws:` url in an mcpServers file reaches the official SDK's
// McpServer behind `ws` on 127.0.0.1 (transport-websocket's fixture), next to server-everything over stdio.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { createRequire } from "node:module"
import { startWsServer } from "../../transport-websocket/test/fixtures/sdkWebSocketServer.js"
import * as BrowserTransportFactory from "../src/BrowserTransportFactory.js"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import type * as TransportFactory from "../src/TransportFactory.js"
import { statusesWhere, text } from "./fixtures/registry.js"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

/** transport-websocket's fixture: the SDK's McpServer (`echo`, `slow`) behind `ws` on 127.0.0.1. */
const wsServer = Effect.acquireRelease(
  Effect.promise(() => startWsServer()),
  (server) => Effect.promise(() => server.close())
)

const registryOn = (factory: Layer.Layer<TransportFactory.TransportFactory>, file: unknown) =>
  Effect.gen(function*() {
    const parsed = Either.getOrThrow(ServerConfig.fromJson(file))
    const context = yield* Layer.build(
      ServerRegistry.layer({ ...parsed, reconnect: { schedule: Schedule.stop } }).pipe(Layer.provide(factory))
    )
    return context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
  })

describe("ServerRegistry over WebSocket", () => {
  it.scopedLive(
    "a stdio server and a ws: server: both listed and called; headers and auth go with the handshake",
    () =>
      Effect.gen(function*() {
        const ws = yield* wsServer
        const registry = yield* registryOn(NodeTransportFactory.layer, {
          mcpServers: {
            everything: { command: process.execPath, args: [everything, "stdio"] },
            socket: {
              url: ws.url,
              headers: { "X-Team": "core" },
              auth: { type: "bearer", token: "${WS_TOKEN:-ws-secret}" }
            },
            ftp: { url: "ftp://127.0.0.1/mcp" }
          }
        })
        const statuses = yield* statusesWhere(
          registry,
          (s) => (s.get("everything")?.toolCount ?? 0) > 0 && (s.get("socket")?.toolCount ?? 0) > 0
        )
        expect(statuses.get("socket")).toMatchObject({ _tag: "Connected", transport: "websocket", toolCount: 2 })
        expect(statuses.get("socket")!.serverInfo?.name).toBe("ws-fixture")
        expect(statuses.get("everything")).toMatchObject({ _tag: "Connected", transport: "stdio" })
        // a scheme no transport speaks: that server's typed config error, naming the schemes allowed
        expect(statuses.get("ftp")).toMatchObject({ _tag: "Failed", transport: undefined })
        expect(statuses.get("ftp")!.lastError?.message).toBe(
          `server "ftp": mcpServers.ftp.url: must be a URL with scheme http:, https:, ws: or wss:`
        )

        // both have an `echo`: at most the one seen first keeps the plain name (names are sticky); each routes to its server
        const tools = yield* registry.tools.get
        const names = tools.map((t) => t.name)
        const echoOf = (server: string) => tools.find((t) => t.server === server && t.tool.name === "echo")!.name
        expect(echoOf("socket")).toMatch(/^(socket__)?echo$/)
        expect(echoOf("everything")).toMatch(/^(everything__)?echo$/)
        expect(echoOf("socket")).not.toBe(echoOf("everything"))
        expect(names).toContain("slow") // no other server has one: its own name
        expect(text(yield* registry.callTool(echoOf("socket"), { text: "over ws" }))).toBe("over ws")
        expect(text(yield* registry.callTool(echoOf("everything"), { message: "over stdio" }))).toBe("Echo: over stdio")
        expect(ws.received.filter((m) => m.method === "tools/call").map((m) => m.params?.name)).toEqual(["echo"])

        expect(ws.handshakes).toHaveLength(1)
        expect(ws.handshakes[0]).toMatchObject({ authorization: "Bearer ws-secret", "x-team": "core" })
        expect(ws.handshakes[0]!["sec-websocket-protocol"]).toBe("mcp")
      }),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "a url written as ${VAR} with a ws: value: a WebSocket server, shown as such; basic auth",
    () =>
      Effect.gen(function*() {
        const ws = yield* wsServer
        const registry = yield* registryOn(NodeTransportFactory.layer, {
          mcpServers: {
            later: {
              url: "${HUB_TEST_WS_URL:-" + ws.url + "}",
              auth: { type: "basic", username: "ada", password: "pa55" }
            }
          }
        })
        const statuses = yield* statusesWhere(registry, (s) => (s.get("later")?.toolCount ?? 0) > 0)
        expect(statuses.get("later")).toMatchObject({ _tag: "Connected", transport: "websocket" })
        expect(text(yield* registry.callTool("echo", { text: "late" }))).toBe("late")
        expect(ws.handshakes[0]!.authorization).toBe(`Basic ${Buffer.from("ada:pa55").toString("base64")}`)
      }),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "what a WebSocket cannot carry is that server's TransportUnavailable, before any socket opens",
    () =>
      Effect.gen(function*() {
        const ws = yield* wsServer
        const node = yield* registryOn(NodeTransportFactory.layer, {
          mcpServers: { oauth: { url: ws.url, auth: { type: "oauth2", clientId: "app" } } }
        })
        const browser = yield* registryOn(BrowserTransportFactory.layer, {
          mcpServers: { keyed: { type: "ws", url: ws.url, auth: { type: "api-key", key: "k3y" } } }
        })
        const oauth = (yield* statusesWhere(node, (s) => s.get("oauth")?._tag === "Failed")).get("oauth")!
        expect(oauth.lastError?._tag).toBe("TransportUnavailable")
        expect(oauth.lastError?.message).toMatch(/no websocket transport here: OAuth .* needs an HTTP server/)
        const keyed = (yield* statusesWhere(browser, (s) => s.get("keyed")?._tag === "Failed")).get("keyed")!
        expect(keyed.lastError?._tag).toBe("TransportUnavailable")
        expect(keyed.lastError?.message).toMatch(/a browser sends no headers with a WebSocket handshake/)
        expect(keyed.lastError?.message).not.toContain("k3y")
        expect(ws.accepted()).toBe(0)
      }),
    { timeout: 60_000 }
  )
})
