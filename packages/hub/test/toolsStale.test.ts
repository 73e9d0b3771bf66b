// The registry says when the tools it shows are not a fresh listing (ServerStatus.toolsStale).
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as McpError from "@mcp-effect/core/McpError"
import * as ResponseCache from "@mcp-effect/core/ResponseCache"
import * as TestServer from "@mcp-effect/core/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as ServerRegistry from "../src/ServerRegistry.js"
import * as TransportFactory from "../src/TransportFactory.js"
import { configs } from "./fixtures/memoryFactory.js"

/** The first status of server "alpha" that passes `ok`. */
const statusWhere = (
  registry: ServerRegistry.Service,
  ok: (status: ServerRegistry.ServerStatus) => boolean
) =>
  registry.servers.changes.pipe(
    Stream.map((all) => all.find((s) => s.name === "alpha")),
    Stream.filter((s): s is ServerRegistry.ServerStatus => s !== undefined && ok(s)),
    Stream.runHead,
    Effect.flatten,
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("status never matched") })
  )

/** A transport factory of in-memory servers (`TestServer`), each kept in `servers` by name. */
const testServers = (servers: Map<string, TestServer.Service>, options: TestServer.Options) =>
  Layer.succeed(TransportFactory.TransportFactory, {
    make: (config) =>
      Effect.gen(function*() {
        const context = yield* Layer.build(TestServer.layer(options))
        servers.set(config.name, Context.get(context, TestServer.TestServer))
        return { context, sessionId: Effect.succeed(undefined) }
      })
  })

describe("ServerRegistry toolsStale", () => {
  it.scopedLive("false for a fresh listing, true while the server reconnects and its last listing is shown", () =>
    Effect.gen(function*() {
      const servers = new Map<string, TestServer.Service>()
      const factory = testServers(servers, {
        era: "modern",
        capabilities: { tools: {} },
        // no reconnect within the test: the server stays away
        reconnect: { schedule: Schedule.spaced("1 hour") },
        handlers: {
          "tools/list": () =>
            Effect.succeed({
              resultType: "complete",
              ttlMs: 60_000,
              cacheScope: "public",
              tools: [{ name: "search", inputSchema: { type: "object" } }]
            })
        }
      })
      const context = yield* Layer.build(
        ServerRegistry.layer({ servers: configs("alpha") }).pipe(
          Layer.provide(factory),
          Layer.provide(ResponseCache.layer()),
          Layer.provide(KeyValueStore.layerMemory)
        )
      )
      const registry = Context.get(context, ServerRegistry.ServerRegistry)
      const ready = yield* statusWhere(registry, (s) => s._tag === "Connected" && s.toolCount === 1)
      expect(ready.toolsStale).toBe(false)
      yield* servers.get("alpha")!.dropConnection
      const down = yield* statusWhere(registry, (s) => s._tag === "Reconnecting")
      expect(down).toMatchObject({ toolsStale: true, toolCount: 1 })
    }))

  it.scopedLive("a reconnecting server's status says why its connection ended; connected again, it has no error", () =>
    Effect.gen(function*() {
      const servers = new Map<string, TestServer.Service>()
      const factory = testServers(servers, {
        capabilities: { tools: {} },
        reconnect: { schedule: Schedule.spaced("300 millis") },
        handlers: {
          "tools/list": () => Effect.succeed({ tools: [{ name: "search", inputSchema: { type: "object" } }] })
        }
      })
      const context = yield* Layer.build(
        ServerRegistry.layer({ servers: configs("alpha") }).pipe(
          Layer.provide(factory),
          Layer.provide(KeyValueStore.layerMemory)
        )
      )
      const registry = Context.get(context, ServerRegistry.ServerRegistry)
      yield* statusWhere(registry, (s) => s._tag === "Connected" && s.toolCount === 1)
      yield* servers.get("alpha")!.failConnection(
        new McpError.TransportError({ reason: "Closed", message: "stdio:node: the server exited on SIGKILL" })
      )
      const down = yield* statusWhere(registry, (s) => s._tag === "Reconnecting")
      expect(down.lastError).toMatchObject({
        _tag: "TransportError",
        message: "stdio:node: the server exited on SIGKILL"
      })
      const back = yield* statusWhere(registry, (s) => s._tag === "Connected")
      expect(back.lastError).toBeUndefined()
    }))
})
