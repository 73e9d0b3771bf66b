// The registry against real servers: server-everything over stdio, an SDK fixture over
// Streamable HTTP on loopback, a disabled entry and a command that does not exist.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import { SharedStore } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { createRequire } from "node:module"
import { startSdkServer } from "../../transport-http/test/fixtures/sdkServer.js"
import * as BrowserTransportFactory from "../src/BrowserTransportFactory.js"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import { httpFixture } from "./fixtures/httpServer.js"
import { statusesWhere, text } from "./fixtures/registry.js"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const configFile = (url: string) =>
  Either.getOrThrow(ServerConfig.fromJson({
    mcpServers: {
      everything: { command: process.execPath, args: [everything, "stdio"] },
      web: { url, trusted: true },
      off: { command: process.execPath, args: [everything, "stdio"], disabled: true },
      broken: { command: "/nonexistent/mcp-server-binary" },
      // starts and never answers initialize
      slow: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] },
      typo: { command: 42 }
    }
  }))

const noRetry = { reconnect: { schedule: Schedule.stop } }

const settled = (statuses: ReadonlyMap<string, ServerRegistry.ServerStatus>) =>
  [...statuses.values()].every((s) => s.name === "slow" || (s._tag !== "Connecting" && s._tag !== "Reconnecting")) &&
  (statuses.get("everything")?.toolCount ?? 0) > 0 && (statuses.get("web")?.toolCount ?? 0) > 0

const build = (options: ServerRegistry.Options) =>
  Effect.map(
    Layer.build(ServerRegistry.layer({ ...noRetry, ...options }).pipe(Layer.provide(NodeTransportFactory.layer))),
    (context) => context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
  )

describe("ServerRegistry", () => {
  it.scopedLive("runs every enabled server on its own: statuses, tools, routing", () =>
    Effect.gen(function*() {
      const web = yield* httpFixture
      const parsed = configFile(web.url)
      expect(parsed.errors.map((e) => e.key)).toEqual(["mcpServers.typo.command"])
      const registry = yield* build(parsed)

      const statuses = yield* statusesWhere(registry, settled)
      expect([...statuses.keys()]).toEqual(["everything", "web", "off", "broken", "slow", "typo"])
      // a server that never answers holds up nobody
      expect(statuses.get("slow")?._tag).toBe("Connecting")
      expect(statuses.get("everything")).toMatchObject({
        _tag: "Connected",
        transport: "stdio",
        trusted: false,
        protocolVersion: "2025-11-25",
        sessionId: undefined
      })
      expect(statuses.get("everything")!.serverInfo?.name).toMatch(/everything/)
      expect(statuses.get("web")).toMatchObject({ _tag: "Connected", transport: "http", trusted: true, toolCount: 3 })
      expect(statuses.get("web")!.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      expect(statuses.get("off")).toMatchObject({ _tag: "Disabled", toolCount: 0, lastError: undefined })
      expect(statuses.get("broken")).toMatchObject({ _tag: "Failed", transport: "stdio" })
      expect(statuses.get("broken")!.lastError?._tag).toBe("TransportError")
      expect(statuses.get("typo")).toMatchObject({ _tag: "Failed", transport: undefined })
      expect(statuses.get("typo")!.lastError?.message).toMatch(/mcpServers\.typo\.command/)

      // tools: of the two `echo`s, at most the one seen first keeps its plain name (names are sticky), the rest keep theirs
      const tools = yield* registry.tools.get
      const names = tools.map((t) => t.name)
      expect(new Set(names).size).toBe(names.length)
      for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      const echoOf = (server: string) => tools.find((t) => t.server === server && t.tool.name === "echo")!.name
      expect(echoOf("everything")).toMatch(/^(everything__)?echo$/)
      expect(echoOf("web")).toMatch(/^(web__)?echo$/)
      expect([echoOf("everything"), echoOf("web")].filter((name) => name === "echo").length).toBeLessThanOrEqual(1)
      expect(names).toContain("record")
      expect(names).toContain("get-sum")
      expect(tools.filter((t) => t.server === "everything")).toHaveLength(statuses.get("everything")!.toolCount)

      // calls go to the server that owns the tool, under its own name
      expect(text(yield* registry.callTool(echoOf("web"), { message: "hi" }))).toBe("http echo: hi")
      expect(text(yield* registry.callTool(echoOf("everything"), { message: "hi" }))).toBe("Echo: hi")
      expect(text(yield* registry.callTool("record"))).toBe("recorded")
      expect(web.calls).toEqual(["echo", "record"])
      const unknown = yield* Effect.flip(registry.callTool("no_such_tool", { message: "hi" }))
      // nothing was sent: a typed error of its own, not a server's JSON-RPC error
      expect(unknown).toBeInstanceOf(ServerRegistry.UnknownTool)

      // a client for everything beyond tools
      const client = yield* registry.client("everything")
      expect((yield* client.listPrompts).length).toBeGreaterThan(0)
      expect((yield* Effect.flip(registry.client("broken"))).reason).toBe("Unavailable")
      expect((yield* Effect.flip(registry.client("nope"))).reason).toBe("UnknownServer")
    }), { timeout: 60_000 })

  it.scopedLive("removing, disabling and adding a server touches only that server", () =>
    Effect.gen(function*() {
      const web = yield* httpFixture
      const registry = yield* build(configFile(web.url))
      yield* statusesWhere(registry, settled)
      const everythingClient = yield* registry.client("everything")
      const echo = (yield* registry.tools.get).find((t) => t.server === "everything" && t.tool.name === "echo")!.name

      yield* registry.remove("web")
      const afterRemove = yield* registry.servers.get
      expect(afterRemove.map((s) => s.name)).toEqual(["everything", "off", "broken", "slow", "typo"])
      const names = (yield* registry.tools.get).map((t) => t.name)
      expect(names).toContain(echo) // everything's echo keeps the name it had
      expect(names).not.toContain("record")
      // the other server's client is the same one, still working
      expect(yield* registry.client("everything")).toBe(everythingClient)
      expect(text(yield* registry.callTool(echo, { message: "still" }))).toBe("Echo: still")

      yield* registry.remove("slow")
      expect(yield* registry.client("everything")).toBe(everythingClient)

      yield* registry.disable("everything")
      expect((yield* registry.servers.get)[0]).toMatchObject({ name: "everything", _tag: "Disabled" })
      expect(yield* registry.tools.get).toEqual([])
      const gone = yield* Effect.flip(everythingClient.ping)
      expect(gone._tag).toBe("TransportError")

      yield* registry.add(Either.getOrThrow(ServerConfig.fromEntry("web2", { type: "http", url: web.url })))
      yield* registry.enable("off")
      const after = yield* statusesWhere(
        registry,
        (s) => s.get("web2")?._tag === "Connected" && s.get("off")?._tag === "Connected" && s.get("off")!.toolCount > 0
      )
      expect(after.get("everything")?._tag).toBe("Disabled")
      // reconnect: a new client for that server only
      const web2Client = yield* registry.client("web2")
      const offClient = yield* registry.client("off")
      yield* registry.reconnect("web2")
      yield* statusesWhere(registry, (s) => s.get("web2")?._tag === "Connected" && s.get("web2")!.toolCount > 0)
      expect(yield* registry.client("web2")).not.toBe(web2Client)
      expect(yield* registry.client("off")).toBe(offClient)
      expect(
        (yield* Effect.flip(registry.add(ServerConfig.fromEntry("off", { command: "x" }).pipe(Either.getOrThrow))))
          .reason
      ).toBe("DuplicateServer")
    }), { timeout: 60_000 })

  it.scopedLive("keeps its changes in a KeyValueStore, configs stored unexpanded", () =>
    Effect.gen(function*() {
      const web = yield* httpFixture
      const kv = yield* KeyValueStore.KeyValueStore
      const servers = [
        Either.getOrThrow(ServerConfig.fromEntry("web", { url: web.url })),
        Either.getOrThrow(ServerConfig.fromEntry("other", { url: web.url }))
      ]
      const stored = Layer.build(
        ServerRegistry.layerStored({ servers, ...noRetry }).pipe(
          Layer.provide(NodeTransportFactory.layer),
          Layer.provide(Layer.succeed(KeyValueStore.KeyValueStore, kv))
        )
      ).pipe(Effect.map((c) => c.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service))

      yield* Effect.scoped(Effect.gen(function*() {
        const registry = yield* stored
        yield* registry.disable("web")
        yield* registry.remove("other")
        yield* registry.add(
          Either.getOrThrow(ServerConfig.fromEntry("env", { url: "${HUB_TEST_URL:-" + web.url + "}" }))
        )
      }))
      // one record per server changed
      const records = SharedStore.fromKeyValueStore(kv).collection(ServerRegistry.defaultStoreKey)
      expect((yield* records.list).map(([name]) => name)).toEqual(["env", "other", "web"])
      expect(yield* records.get("env").pipe(Effect.map((o) => o._tag === "Some" && o.value))).toContain(
        "${HUB_TEST_URL:-"
      )

      const registry = yield* stored
      const statuses = yield* statusesWhere(registry, (s) => s.get("env")?._tag === "Connected")
      expect([...statuses.keys()]).toEqual(["web", "env"])
      expect(statuses.get("web")?._tag).toBe("Disabled")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)), { timeout: 60_000 })

  it.scopedLive(
    "in the browser factory a stdio server is a typed per-server failure; HTTP runs",
    () =>
      Effect.gen(function*() {
        const web = yield* httpFixture
        const context = yield* Layer.build(
          ServerRegistry.layer({ ...configFile(web.url), ...noRetry }).pipe(
            Layer.provide(BrowserTransportFactory.layer)
          )
        )
        const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
        const statuses = yield* statusesWhere(
          registry,
          (s) => (s.get("web")?.toolCount ?? 0) > 0 && s.get("everything")?._tag === "Failed"
        )
        expect(statuses.get("everything")!.lastError?._tag).toBe("TransportUnavailable")
        expect(statuses.get("everything")!.lastError?.message).toMatch(/server "everything": no stdio transport here/)
        expect(text(yield* registry.callTool("echo", { message: "b" }))).toBe("http echo: b")
      }),
    { timeout: 60_000 }
  )

  it.scopedLive("an sse entry reaches a 2024-11-05 HTTP+SSE server", () =>
    Effect.gen(function*() {
      const legacy = yield* Effect.acquireRelease(Effect.promise(() => startSdkServer("legacy")), (server) =>
        Effect.promise(() => server.close()))
      const registry = yield* build({
        servers: [Either.getOrThrow(ServerConfig.fromEntry("old", { type: "sse", url: legacy.url }))]
      })
      const statuses = yield* statusesWhere(registry, (s) =>
        (s.get("old")?.toolCount ?? 0) > 0)
      expect(statuses.get("old")).toMatchObject({ _tag: "Connected", transport: "sse" })
      expect(text(yield* registry.callTool("echo", { text: "legacy" }))).toBe("legacy")
      expect(legacy.requests.some((r) => r.method === "GET" && r.path === "/mcp")).toBe(true)
    }), { timeout: 60_000 })
})
