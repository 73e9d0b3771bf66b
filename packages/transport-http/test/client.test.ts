// McpClient (core session engine) over HttpTransport, end to end on loopback.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { resource, waitFor } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"

const fast = Schedule.spaced("10 millis").pipe(Schedule.intersect(Schedule.recurs(5)))

const client = (options: HttpTransport.Options) =>
  Layer.build(
    McpClient.layer({ clientInfo: { name: "http-e2e", version: "1.0.0" }, prefetch: false }).pipe(
      Layer.provide(HttpTransport.layer({ reconnect: { schedule: fast }, sseReconnect: fast, ...options })),
      Layer.provide(FetchHttpClient.layer)
    )
  ).pipe(Effect.map((context) => context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service))

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((c) =>
    (c as { type: string; text?: string }).type === "text" ? [(c as { text: string }).text] : []
  )
    .join("\n")

describe("McpClient over HttpTransport", () => {
  for (const mode of ["stateful", "stateless", "json"] as const) {
    it.scopedLive(`SDK server (${mode}): initialize, tools, server notifications and pings`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startSdkServer(mode))
        const mcp = yield* client({ url: server.url })
        expect((yield* mcp.initialized).protocolVersion).toBe("2025-11-25")
        const tools = yield* mcp.listTools
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "count", "notify", "ask"]))
        expect(text(yield* mcp.callTool({ name: "echo", arguments: { text: "hello" } }))).toBe("hello")
        const log = yield* Effect.fork(mcp.logMessages.pipe(Stream.runHead))
        yield* Effect.sleep("10 millis")
        expect(text(yield* mcp.callTool({ name: "notify" }))).toBe("notified")
        if (mode !== "json") expect((yield* Fiber.join(log))._tag).toBe("Some") // JSON mode has no stream for it
        // a server request inside a tool call needs a stream and a session to route the answer back
        if (mode === "stateful") expect(text(yield* mcp.callTool({ name: "ask" }))).toBe("pinged")
        yield* mcp.ping
      }))
  }

  it.scopedLive("SDK server: a POST stream closed for polling is resumed and the tool runs once", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful", { retryInterval: 20 }))
      const mcp = yield* client({ url: server.url })
      expect(text(yield* mcp.callTool({ name: "poll" }))).toBe("polled")
      expect(server.toolExecutions()).toBe(1)
    }))

  it.scopedLive("session expired (404) mid-use: a new session without the old id, the read retried", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const mcp = yield* client({ url: server.url })
      expect((yield* mcp.listTools).map((t) => t.name)).toEqual(["count"])
      server.expire()
      expect((yield* mcp.listTools).map((t) => t.name)).toEqual(["count"])
      const inits = server.requests.filter((r) => r.body?.method === "initialize")
      expect(inits).toHaveLength(2)
      expect(inits[1]!.headers["mcp-session-id"]).toBeUndefined()
      const lists = server.requests.filter((r) => r.body?.method === "tools/list")
      expect(lists.map((r) => r.headers["mcp-session-id"])).toEqual(["s1", "s1", "s2"]) // the second got 404
    }))

  it.scopedLive("session lost while a tools/call runs: OutcomeUnknown, executed at most once; reads replayed", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const mcp = yield* client({ url: server.url })
      yield* mcp.initialized
      server.faults.stallMethod = "tools/list"
      const listed = yield* Effect.fork(mcp.listTools)
      yield* waitFor("the stalled list", () => server.requests.some((r) => r.body?.method === "tools/list"))
      server.faults.dropCallStreams = 1
      server.faults.expireOnDrop = true
      const error = yield* Effect.flip(mcp.callTool({ name: "count" }))
      expect(error).toBeInstanceOf(McpError.OutcomeUnknown)
      expect((error as McpError.OutcomeUnknown).toolName).toBe("count")
      expect((yield* Fiber.join(listed)).map((t) => t.name)).toEqual(["count"])
      expect(server.toolExecutions()).toBe(1)
      expect(server.requests.filter((r) => r.body?.method === "tools/call")).toHaveLength(1)
      // the stalled list was replayed on the new session, which never saw the old id
      const isInit = (r: (typeof server.requests)[number]) => r.body?.method === "initialize"
      const firstInit = server.requests.findIndex(isInit) // after the server/discover probe
      const reinit = server.requests.findIndex((r, i) => i > firstInit && isInit(r))
      const after = server.requests.slice(reinit)
      expect(after[0]!.headers["mcp-session-id"]).toBeUndefined()
      expect(after.slice(1).every((r) => r.headers["mcp-session-id"] === "s2")).toBe(true)
      expect(after.filter((r) => r.body?.method === "tools/list")).toHaveLength(1)
    }))

  it.scopedLive("legacy HTTP+SSE server (SDK): the client works through the fallback", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("legacy"))
      const mcp = yield* client({ url: server.url })
      expect(text(yield* mcp.callTool({ name: "echo", arguments: { text: "legacy" } }))).toBe("legacy")
      expect(text(yield* mcp.callTool({ name: "ask" }))).toBe("pinged")
    }))
})
