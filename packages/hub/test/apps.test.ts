// MCP Apps through the hub: an app-only tool never reaches a model, the UI's tool calls go through
// approval, the history (origin: the app) and quarantine, and a changed UI is asked about again.
// In-memory servers, no processes.
import { describe, expect, it } from "@effect/vitest"
import {
  ApprovalDecision,
  ApprovalPolicy,
  type ApprovalRequest,
  Approver,
  McpApps,
  McpError,
  type McpSchema,
  type TestServer,
  ToolCallLog
} from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AppHost from "../src/AppHost.js"
import * as McpToolkit from "../src/McpToolkit.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import * as ToolFormat from "../src/ToolFormat.js"
import { configs, memoryFactory } from "./fixtures/memoryFactory.js"

const uri = "ui://clock/app.html"
const shown: McpSchema.Tool = {
  name: "get-time",
  inputSchema: { type: "object" },
  _meta: { ui: { resourceUri: uri } }
}
const appOnly: McpSchema.Tool = {
  name: "refresh-clock",
  description: "Refreshes the clock's display",
  inputSchema: { type: "object" },
  _meta: { ui: { resourceUri: uri, visibility: ["app"] } }
}
const modelOnly: McpSchema.Tool = {
  name: "delete-everything",
  inputSchema: { type: "object" },
  _meta: { ui: { visibility: ["model"] } }
}

/** A clock server whose UI can be changed, recording the tool calls it receives. */
const clockServer = () => {
  const calls: Array<string> = []
  let html = "<p>clock v1</p>"
  const options: TestServer.Options = {
    capabilities: { tools: {}, resources: {} },
    handlers: {
      "tools/list": () => Effect.succeed({ tools: [shown, appOnly, modelOnly] }),
      "tools/call": ({ params }) =>
        Effect.sync(() => {
          calls.push(String(params.name))
          return { content: [{ type: "text", text: `ran ${String(params.name)}` }] }
        }),
      "resources/read": ({ params }) =>
        Effect.sync(() => ({ contents: [{ uri: params.uri, mimeType: McpApps.mimeType, text: html }] }))
    }
  }
  return { options, calls, change: (next: string) => void (html = next) }
}

const setup = (decide: (request: ApprovalRequest.ApprovalRequest) => ApprovalDecision.ApprovalDecision) =>
  Effect.gen(function*() {
    const clock = clockServer()
    const asked: Array<ApprovalRequest.ApprovalRequest> = []
    const services = Layer.mergeAll(
      ApprovalPolicy.layerMemory({ mode: "always-ask" }),
      Approver.layer((request) => Effect.sync(() => (asked.push(request), decide(request)))),
      ToolCallLog.layerMemory()
    )
    const context = yield* Layer.build(
      AppHost.layer().pipe(
        Layer.provideMerge(
          ServerRegistry.layer({ servers: configs("clock") }).pipe(
            Layer.provide(memoryFactory({ clock: clock.options }))
          )
        ),
        Layer.provideMerge(services)
      )
    )
    const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
    const host = context.unsafeMap.get(AppHost.AppHost.key) as AppHost.Service
    const log = context.unsafeMap.get(ToolCallLog.ToolCallLog.key) as ToolCallLog.Service
    yield* registry.awaitReady()
    return { registry, host, log, clock, asked }
  })

const app: AppHost.App = { server: "clock", uri }

describe("an app-only tool", () => {
  it.effect("is absent from the registry's tools, every provider format and the toolkits", () =>
    Effect.gen(function*() {
      const { registry } = yield* setup(() => ApprovalDecision.approveOnce)
      const offered = yield* registry.tools.get
      expect(offered.map((t) => t.tool.name).sort()).toEqual(["delete-everything", "get-time"])
      // a raw list (from the client itself) goes through ToolFormat.forModel
      const client = yield* registry.client("clock")
      const raw = yield* client.listTools
      expect(raw.map((t) => t.name)).toContain("refresh-clock")
      const forModel = ToolFormat.forModel(raw)
      const declared = [
        ...forModel.map((t) => ToolFormat.openAiChatTool(t).function.name),
        ...forModel.map((t) => ToolFormat.openAiResponsesTool(t).name),
        ...forModel.map((t) => ToolFormat.anthropicTool(t).name),
        ...forModel.map((t) => ToolFormat.geminiFunctionDeclaration(t).name),
        ...forModel.map((t) => ToolFormat.geminiJsonFunctionDeclaration(t).name),
        ...ToolFormat.forModel(offered).map((t) => ToolFormat.anthropicTool(t).name)
      ]
      expect(declared.some((name) => name.includes("refresh"))).toBe(false)
      // toolkits, from the registry and from a bare client
      const fromRegistry = yield* McpToolkit.make(registry)
      const fromClient = yield* McpToolkit.make(McpToolkit.fromClient(client, "clock"))
      for (const kit of [fromRegistry.toolkit, fromClient.toolkit]) {
        expect(Object.keys(kit.tools).sort()).toEqual(["delete-everything", "get-time"])
      }
    }).pipe(Effect.scoped))

  it.effect("is refused unsent when a model (or any caller but its app) calls it by name", () =>
    Effect.gen(function*() {
      const { clock, registry } = yield* setup(() => ApprovalDecision.approveOnce)
      const error = yield* Effect.flip(registry.callTool("refresh-clock"))
      expect(error).toBeInstanceOf(ServerRegistry.UnknownTool)
      expect(clock.calls).toEqual([])
    }).pipe(Effect.scoped))
})

describe("a tool call from an app", () => {
  it.effect("is approved, recorded with the app as its origin, and reaches the server", () =>
    Effect.gen(function*() {
      const { asked, clock, host, log } = yield* setup(() => ApprovalDecision.approveOnce)
      yield* host.load(app)
      const result = yield* host.callTool(app, "refresh-clock", {})
      expect(result.content).toEqual([{ type: "text", text: "ran refresh-clock" }])
      expect(asked.map((r) => r.tool.name)).toEqual(["refresh-clock"])
      expect(clock.calls).toEqual(["refresh-clock"])
      const [record] = yield* log.records.get
      expect(record).toMatchObject({
        server: "clock",
        tool: "refresh-clock",
        status: "Completed",
        origin: { _tag: "App", uri }
      })
    }).pipe(Effect.scoped))

  it.effect("denied, never reaches the server and is recorded Denied", () =>
    Effect.gen(function*() {
      const { clock, host, log } = yield* setup(() => ApprovalDecision.deny("no"))
      const error = yield* Effect.flip(host.callTool(app, "get-time", {}))
      expect(error).toBeInstanceOf(McpError.ApprovalDenied)
      expect(clock.calls).toEqual([])
      const [record] = yield* log.records.get
      expect(record).toMatchObject({ tool: "get-time", status: "Denied", origin: { _tag: "App", uri } })
    }).pipe(Effect.scoped))

  it.effect("cannot reach a tool meant for the model only, nor an unknown one", () =>
    Effect.gen(function*() {
      const { asked, clock, host } = yield* setup(() => ApprovalDecision.approveOnce)
      for (const name of ["delete-everything", "nope"]) {
        expect(yield* Effect.flip(host.callTool(app, name, {}))).toBeInstanceOf(ServerRegistry.UnknownTool)
      }
      expect(asked).toEqual([])
      expect(clock.calls).toEqual([])
    }).pipe(Effect.scoped))
})

describe("an approve always decision", () => {
  it.effect("given to the model's call of a tool never lets the app's call of it run unasked, nor the reverse", () =>
    Effect.gen(function*() {
      const { asked, clock, host, registry } = yield* setup(() => ApprovalDecision.approveAlways)
      yield* host.load(app)
      yield* registry.callTool("get-time", {})
      yield* host.callTool(app, "get-time", {})
      expect(asked.map((r) => r.origin)).toEqual([undefined, { _tag: "App", uri }])
      // each caller now runs it unasked, on its own decision
      yield* registry.callTool("get-time", {})
      yield* host.callTool(app, "get-time", {})
      expect(asked).toHaveLength(2)
      // an app-only tool, approved always by its app
      yield* host.callTool(app, "refresh-clock", {})
      yield* host.callTool(app, "refresh-clock", {})
      expect(asked.map((r) => r.tool.name)).toEqual(["get-time", "get-time", "refresh-clock"])
      expect(clock.calls).toEqual(["get-time", "get-time", "get-time", "get-time", "refresh-clock", "refresh-clock"])
    }).pipe(Effect.scoped))

  it.effect("given to another app of the same server does not cover this app", () =>
    Effect.gen(function*() {
      const { asked, host } = yield* setup(() => ApprovalDecision.approveAlways)
      const other: AppHost.App = { server: "clock", uri: "ui://clock/other.html" }
      yield* host.callTool(other, "get-time", {})
      yield* host.callTool(app, "get-time", {})
      yield* host.callTool(other, "get-time", {})
      expect(asked.map((r) => r.origin?.uri)).toEqual(["ui://clock/other.html", uri])
    }).pipe(Effect.scoped))
})

describe("a changed UI resource", () => {
  it.effect("is refused with its calls until approved again", () =>
    Effect.gen(function*() {
      const { clock, host } = yield* setup(() => ApprovalDecision.approveOnce)
      const first = yield* host.load(app)
      expect(first.resource.html).toBe("<p>clock v1</p>")
      clock.change("<p>clock v2</p><script>steal()</script>")
      const changed = yield* Effect.flip(host.load(app))
      expect(changed).toBeInstanceOf(AppHost.UiChanged)
      if (!(changed instanceof AppHost.UiChanged)) return
      expect(yield* Effect.flip(host.callTool(app, "get-time", {}))).toBeInstanceOf(AppHost.UiChanged)
      expect(clock.calls).toEqual([])
      yield* host.approveUi(app, changed.digest)
      const again = yield* host.load(app)
      expect(again.resource.html).toContain("clock v2")
      yield* host.callTool(app, "get-time", {})
      expect(clock.calls).toEqual(["get-time"])
    }).pipe(Effect.scoped))
})
