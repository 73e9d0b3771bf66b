/**
 * The MCP Apps part of the page, bundled on its own and added by
 * `browser/apps.ts`: a React tree on the bindings (`RuntimeProvider`,
 * `McpApp`) over a `BrowserHub` with the extension advertised, the policy
 * `always-ask` and an approver the runner steers. `window.appsHarness`
 * starts the hub, mounts an app, and reports what the hub saw.
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { ApprovalDecision, ClientExtensions, McpApps, ToolCallLog } from "@mcp-effect/core"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import { AppHost, ServerRegistry, ToolFormat } from "@mcp-effect/hub"
import * as BrowserHub from "@mcp-effect/hub/BrowserHub"
import { McpApp, RuntimeProvider } from "@mcp-effect/react"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as React from "react"
import * as ReactDOM from "react-dom/client"

let decision: "approve" | "deny" = "approve"
const asked: Array<{ readonly tool: string; readonly server: string }> = []

const makeLayer = (servers: Record<string, string>) =>
  AppHost.layer().pipe(
    Layer.provideMerge(BrowserHub.layer({
      config: { mcpServers: Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { url }])) },
      storage: KeyValueStore.layerMemory,
      approval: { mode: "always-ask" },
      approver: (request) =>
        Effect.sync(() => {
          asked.push({ tool: request.tool.name, server: request.server })
          return decision === "approve"
            ? ApprovalDecision.approveOnce
            : ApprovalDecision.deny("denied in the browser suite")
        })
    })),
    // servers see that this client renders MCP Apps
    Layer.provide(ClientExtensions.layer({ ...McpApps.capability }))
  )

let runtime: ManagedRuntime.ManagedRuntime<any, any> | undefined
let root: ReactDOM.Root | undefined
const container = document.createElement("div")
container.id = "apps"
document.body.append(container)

const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => runtime!.runPromise(effect as Effect.Effect<A, E, never>)

const start = async (servers: Record<string, string>) => {
  await stop()
  runtime = ManagedRuntime.make(makeLayer(servers))
  const statuses = await run(Effect.flatMap(ServerRegistry.ServerRegistry, (registry) => registry.awaitReady()))
  return statuses.map((s) => ({
    name: s.name,
    status: s._tag,
    protocolVersion: s.protocolVersion ?? "",
    error: s.lastError?.message ?? ""
  }))
}

const stop = async () => {
  root?.unmount()
  root = undefined
  await runtime?.dispose()
  runtime = undefined
}

/** Renders the app of `tool` on `server`, its input `{}` and the result of a call the "model" made first. */
const mount = async (server: string, tool: string) => {
  root?.unmount()
  const { definition, result } = await run(Effect.gen(function*() {
    const registry = yield* ServerRegistry.ServerRegistry
    const found = (yield* registry.tools.get).find((t) => t.server === server && t.tool.name === tool)
    if (found === undefined) return yield* Effect.dieMessage(`no tool ${tool} on ${server}`)
    const result = yield* Effect.either(registry.callTool(found.name, {}))
    return { definition: found.tool, result: result._tag === "Right" ? result.right : undefined }
  }))
  // the page's services, handed to the bindings' provider as they are
  const context = (await runtime!.runtime()).context
  root = ReactDOM.createRoot(container)
  root.render(
    React.createElement(
      RuntimeProvider.Provider,
      { layer: Layer.succeedContext(context) },
      React.createElement(McpApp.McpApp, {
        server,
        tool: definition as McpSchema.Tool,
        input: {},
        result,
        theme: "dark"
      })
    )
  )
}

const unmount = () => {
  root?.unmount()
  root = undefined
}

/** The call history as plain JSON: tool, status, origin. */
const history = () =>
  run(Effect.flatMap(ToolCallLog.ToolCallLog, (log) => log.records.get)).then((records) =>
    records.map((r) => ({ server: r.server, tool: r.tool, status: r.status, origin: r.origin?.uri ?? "" }))
  )

/** What a model would be offered of `server`'s tools, in every format. */
const modelFacing = (server: string) =>
  run(Effect.gen(function*() {
    const registry = yield* ServerRegistry.ServerRegistry
    const offered = (yield* registry.tools.get).filter((t) => t.server === server)
    const client = yield* registry.client(server)
    const raw = ToolFormat.forModel(yield* client.listTools)
    return {
      registry: offered.map((t) => t.tool.name),
      listed: (yield* client.listTools).map((t) => t.name),
      openAiChat: raw.map((t) => ToolFormat.openAiChatTool(t).function.name),
      openAiResponses: raw.map((t) => ToolFormat.openAiResponsesTool(t).name),
      anthropic: offered.map((t) => ToolFormat.anthropicTool(t).name),
      gemini: offered.map((t) => ToolFormat.geminiFunctionDeclaration(t).name),
      appTools: (yield* registry.appTools(server)).map((t) => t.tool.name)
    }
  }))
;(globalThis as { appsHarness?: unknown }).appsHarness = {
  start,
  stop,
  mount,
  unmount,
  history,
  modelFacing,
  setDecision: (next: "approve" | "deny") => void (decision = next),
  asked: () => asked.splice(0),
  policy: (csp: McpApps.Csp) => McpApps.contentSecurityPolicy(csp)
}
