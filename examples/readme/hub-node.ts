import { ApprovalDecision, ToolCallLog } from "@mcp-effect/core"
import { ServerRegistry } from "@mcp-effect/hub"
import { NodeFileKeyValueStore, NodeHub } from "@mcp-effect/hub/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const Hub = NodeHub.layer({
  config: "mcp.json",
  storage: NodeFileKeyValueStore.layer(".mcp-state"),
  approval: { mode: "trusted-only" },
  // runs unasked only what a trusted server's tool says is harmless; an untrusted server's request always
  // carries an `UntrustedServer` warning, so no server approves itself by what its annotations claim
  approver: (request) =>
    Effect.succeed(
      request.trusted && request.warnings.length === 0
        ? ApprovalDecision.approveOnce
        : ApprovalDecision.deny("needs a person")
    )
})

export const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  // every server connected with its tools listed, or failed (default timeout: 35 s)
  for (const server of yield* registry.awaitReady()) {
    yield* Console.log(`${server.name}: ${server._tag} (${server.toolCount} tools)`)
  }
  const tools = yield* registry.tools.get
  yield* Console.log(tools.map((tool) => `${tool.name} -> ${tool.server}/${tool.tool.name}`).join("\n"))
  const result = yield* registry.callTool("echo", { message: "hi" })
  yield* Console.log(result.content)
  const history = yield* ToolCallLog.ToolCallLog
  yield* Console.log((yield* history.records.get).map((record) => record.status))
}).pipe(Effect.provide(Hub))
