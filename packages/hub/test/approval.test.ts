// Calls through the registry go through core's approval policy and call log when the app provides
// them: against server-everything (stdio, untrusted) and the SDK fixture (HTTP, trusted).
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import {
  ApprovalDecision,
  ApprovalPolicy,
  type ApprovalRequest,
  Approver,
  McpError,
  ToolCallLog
} from "@mcp-effect/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import { httpFixture } from "./fixtures/httpServer.js"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

interface Asked {
  readonly request: ApprovalRequest.ApprovalRequest
  readonly statusWhileAsking: ReadonlyArray<ToolCallLog.Status>
}

/** A registry over both servers with the policy, an approver answering `decide`, and a call log. */
const setup = (
  mode: ApprovalPolicy.Mode,
  decide: (request: ApprovalRequest.ApprovalRequest) => ApprovalDecision.ApprovalDecision
) =>
  Effect.gen(function*() {
    const web = yield* httpFixture
    const asked: Array<Asked> = []
    const log = yield* ToolCallLog.make().pipe(Effect.provide(KeyValueStore.layerMemory))
    const approver = Approver.layer((request) =>
      Effect.map(log.records.get, (records) => {
        asked.push({ request, statusWhileAsking: records.map((r) => r.status) })
        return decide(request)
      })
    )
    const { servers } = Either.getOrThrow(ServerConfig.fromJson({
      mcpServers: {
        everything: { command: process.execPath, args: [everything, "stdio"] },
        web: { url: web.url, trusted: true }
      }
    }))
    const context = yield* Layer.build(
      ServerRegistry.layer({ servers, reconnect: { schedule: Schedule.stop } }).pipe(
        Layer.provide(NodeTransportFactory.layer),
        Layer.provide(Layer.mergeAll(
          ApprovalPolicy.layerMemory({ mode }),
          approver,
          Layer.succeed(ToolCallLog.ToolCallLog, log)
        ))
      )
    )
    const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
    yield* registry.servers.changes.pipe(
      Stream.filter((list) => list.every((s) => s._tag === "Connected" && s.toolCount > 0)),
      Stream.runHead,
      Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("servers never connected") })
    )
    return { registry, web, asked, log }
  })

/** The registry name of a server's tool (names are sticky: which `echo` keeps its plain name depends on timing). */
const nameOf = (registry: ServerRegistry.Service, server: string, tool: string) =>
  Effect.map(registry.tools.get, (tools) => tools.find((t) => t.server === server && t.tool.name === tool)!.name)

describe("ServerRegistry with the approval policy and the call log", () => {
  it.scopedLive(
    "always-ask: a denied call never reaches its server and is recorded Denied",
    () =>
      Effect.gen(function*() {
        const { asked, log, registry, web } = yield* setup("always-ask", () => ApprovalDecision.deny("not today"))
        const error = yield* Effect.flip(registry.callTool("record"))
        expect(error).toBeInstanceOf(McpError.ApprovalDenied)
        expect(error.message).toMatch(/not today/)
        // even the trusted server is asked in always-ask mode
        expect(asked.map((a) => [a.request.server, a.request.tool.name, a.request.trusted])).toEqual([[
          "web",
          "record",
          true
        ]])
        expect(web.calls).toEqual([])
        const records = yield* log.records.get
        expect(records.map((r) => [r.server, r.tool, r.status])).toEqual([["web", "record", "Denied"]])
      }),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "trusted-only (seed 000): trusted servers run, others ask; approve always is remembered",
    () =>
      Effect.gen(function*() {
        const { asked, registry, web } = yield* setup("trusted-only", () => ApprovalDecision.approveAlways)
        yield* registry.callTool("record")
        yield* registry.callTool(yield* nameOf(registry, "web", "echo"), { message: "x" })
        expect(asked).toEqual([])
        expect(web.calls).toEqual(["record", "echo"])

        const sum = yield* registry.callTool("get-sum", { a: 2, b: 3 })
        expect(JSON.stringify(sum.content)).toContain("5")
        expect(asked.map((a) => [a.request.server, a.request.trusted, a.request.tool.name])).toEqual([
          ["everything", false, "get-sum"]
        ])
        yield* registry.callTool("get-sum", { a: 1, b: 1 })
        expect(asked).toHaveLength(1)
        // another tool of the untrusted server is asked about again
        yield* registry.callTool(yield* nameOf(registry, "everything", "echo"), { message: "y" })
        expect(asked.map((a) => a.request.tool.name)).toEqual(["get-sum", "echo"])
      }),
    { timeout: 60_000 }
  )

  it.scopedLive("the history records every status", () =>
    Effect.gen(function*() {
      const { asked, log, registry } = yield* setup(
        "trusted-only",
        (request) => request.tool.name === "echo" ? ApprovalDecision.deny() : ApprovalDecision.approveOnce
      )
      // AwaitingApproval while the person is asked, then Completed
      yield* registry.callTool("get-sum", { a: 1, b: 2 })
      expect(asked[0]!.statusWhileAsking).toEqual(["AwaitingApproval"])
      // Denied
      yield* Effect.flip(registry.callTool(yield* nameOf(registry, "everything", "echo"), { message: "no" }))
      // Failed: a tool result with isError (trusted server: no question)
      const failed = yield* registry.callTool("fail")
      expect(failed.isError).toBe(true)
      // Running while progress arrives, then Cancelled by an interrupt
      const progressed = yield* Deferred.make<ReadonlyArray<ToolCallLog.Status>>()
      const fiber = yield* Effect.fork(
        registry.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, {
          onProgress: () =>
            Effect.flatMap(log.records.get, (records) => Deferred.succeed(progressed, records.map((r) => r.status)))
        })
      )
      expect((yield* Deferred.await(progressed)).at(-1)).toBe("Running")
      yield* Fiber.interrupt(fiber)
      // TimedOut: a hard maximum far below the operation's length
      const timedOut = yield* Effect.flip(
        registry.callTool("trigger-long-running-operation", { duration: 30, steps: 2 }, {
          maxTotalTimeout: "300 millis"
        })
      )
      expect(timedOut._tag).toBe("RequestTimeout")

      const records = yield* log.records.get
      expect(records.map((r) => [r.tool, r.status])).toEqual([
        ["get-sum", "Completed"],
        ["echo", "Denied"],
        ["fail", "Failed"],
        ["trigger-long-running-operation", "Cancelled"],
        ["trigger-long-running-operation", "TimedOut"]
      ])
      expect(records.map((r) => r.server)).toEqual(["everything", "everything", "web", "everything", "everything"])
      for (const record of records) expect(record.endedAt).toBeDefined()
    }), { timeout: 60_000 })
})
