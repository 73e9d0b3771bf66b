import { NodeKeyValueStore } from "@effect/platform-node"
import { ApprovalDecision, ApprovalPolicy, Approver, McpClient, ToolCallLog } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const AppServices = Layer.mergeAll(
  ApprovalPolicy.layer({
    mode: "trusted-only",
    tools: { "*": { deny: ["get-env"] }, everything: { allow: ["echo"] } }
  }),
  ToolCallLog.layer({ retention: 500 }),
  Approver.layer((request) =>
    Effect.succeed(
      request.warnings.some((w) => w._tag === "Destructive" && w.declared) ?
        ApprovalDecision.deny("destructive tools need a person") :
        ApprovalDecision.approveOnce
    )
  )
).pipe(Layer.provide(NodeKeyValueStore.layerFileSystem(".mcp-state")))

export const Client = McpClient.layer({ clientInfo: { name: "app", version: "1.0.0" }, server: "everything" }).pipe(
  Layer.provideMerge(AppServices),
  Layer.provide(NodeStdioTransport.layer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }))
)
