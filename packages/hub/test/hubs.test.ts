// The one-line hubs: NodeHub from a config file with file storage (kept across restarts), and
// BrowserHub with IndexedDB (fake-indexeddb) over fetch.
import "fake-indexeddb/auto"
import { describe, expect, it } from "@effect/vitest"
import { ApprovalDecision, type ApprovalRequest, ToolCallLog } from "@mcp-effect/core"
import { BrowserHub } from "@mcp-effect/hub/browser"
import { NodeFileKeyValueStore, NodeHub } from "@mcp-effect/hub/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import { httpFixture } from "./fixtures/httpServer.js"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const connected = (registry: ServerRegistry.Service, names: ReadonlyArray<string>) =>
  registry.servers.changes.pipe(
    Stream.filter((list) =>
      names.every((name) => list.some((s) => s.name === name && s._tag === "Connected" && s.toolCount > 0))
    ),
    Stream.runHead,
    Effect.flatten,
    Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("never connected") })
  )

describe("NodeHub", () => {
  it.scopedLive(
    "one Layer from a config file; approvals, history and changes survive a restart",
    () =>
      Effect.gen(function*() {
        const web = yield* httpFixture
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "hub-node-"))
        const file = Path.join(dir, "mcp.json")
        Fs.writeFileSync(
          file,
          JSON.stringify({
            mcpServers: {
              everything: { command: process.execPath, args: [everything, "stdio"] },
              web: { url: web.url },
              bad: { args: ["no command"] }
            }
          })
        )
        const asked: Array<ApprovalRequest.ApprovalRequest> = []
        const hub = NodeHub.layer({
          config: file,
          storage: NodeFileKeyValueStore.layer(Path.join(dir, "store")),
          approval: { mode: "always-ask" },
          approver: (request) => Effect.sync(() => (asked.push(request), ApprovalDecision.approveAlways))
        })
        const run = <A, E>(body: (registry: ServerRegistry.Service, log: ToolCallLog.Service) => Effect.Effect<A, E>) =>
          Effect.scoped(Effect.gen(function*() {
            const context = yield* Layer.build(hub)
            const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
            const log = context.unsafeMap.get(ToolCallLog.ToolCallLog.key) as ToolCallLog.Service
            return yield* body(registry, log)
          }))

        yield* run((registry) =>
          Effect.gen(function*() {
            const statuses = yield* connected(registry, ["everything", "web"])
            expect(statuses.find((s) => s.name === "bad")).toMatchObject({ _tag: "Failed" })
            yield* registry.callTool("record")
            expect(asked.map((r) => r.tool.name)).toEqual(["record"])
            yield* registry.disable("everything")
          })
        )

        yield* run((registry, log) =>
          Effect.gen(function*() {
            yield* connected(registry, ["web"])
            // disabled before the restart, still disabled
            expect((yield* registry.servers.get).find((s) => s.name === "everything")?._tag).toBe("Disabled")
            // approved "always" before the restart: not asked again
            yield* registry.callTool("record")
            expect(asked).toHaveLength(1)
            expect((yield* log.records.get).map((r) => [r.tool, r.status])).toEqual([
              ["record", "Completed"],
              ["record", "Completed"]
            ])
          })
        )
        expect(web.calls).toEqual(["record", "record"])
      }),
    { timeout: 60_000 }
  )

  it.effect("an unreadable config file fails the Layer typed", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(Layer.build(NodeHub.layer({ config: "/nonexistent/mcp.json" }))))
      expect(error).toBeInstanceOf(ServerConfig.ConfigFileError)
    }))
})

describe("BrowserHub", () => {
  it.scopedLive("one Layer over fetch and IndexedDB; a stdio entry fails on its own", () =>
    Effect.gen(function*() {
      const web = yield* httpFixture
      const context = yield* Layer.build(BrowserHub.layer({
        config: { mcpServers: { web: { url: web.url }, local: { command: "node" } } }
      }))
      const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
      const statuses = yield* connected(registry, ["web"])
      expect(statuses.find((s) => s.name === "local")?.lastError?._tag).toBe("TransportUnavailable")
      expect(yield* registry.callTool("echo", { message: "browser" })).toMatchObject({
        content: [{ type: "text", text: "http echo: browser" }]
      })
    }), { timeout: 60_000 })
})
