import { ApprovalDecision } from "@mcp-effect/core"
import { ServerRegistry } from "@mcp-effect/hub"
import { BrowserHub } from "@mcp-effect/hub/browser"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"

const Hub = BrowserHub.layer({
  config: { mcpServers: { docs: { url: "https://example.com/mcp" } } },
  approval: { mode: "always-ask" },
  approver: (request) =>
    Effect.sync(() =>
      window.confirm(`${request.server} wants to run ${request.tool.title ?? request.tool.name}`)
        ? ApprovalDecision.approveOnce
        : ApprovalDecision.deny("declined")
    )
})

export const runtime = ManagedRuntime.make(Hub)
export const callTool = (name: string, args: Record<string, unknown>) =>
  runtime.runPromise(Effect.flatMap(ServerRegistry.ServerRegistry, (registry) => registry.callTool(name, args)))
