/**
 * Tool calls under an approval policy, with a history: every call to
 * server-everything is asked about in the terminal (yes / always / no), and
 * "always" answers and the history are kept in ~/.mcp-effect-approval.
 *
 *   npx tsx --conditions=@mcp-effect/source examples/approval.ts
 *
 * The README of @mcp-effect/core quotes this file.
 */
import { NodeKeyValueStore } from "@effect/platform-node"
import {
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalRequest,
  Approver,
  McpClient,
  McpError,
  ToolCallLog
} from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Console from "effect/Console"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline/promises"

// --- the Approver: how this app asks a person ---
const describe = (request: ApprovalRequest.ApprovalRequest): string =>
  [
    // server text in a request is neutralised already, except the tool's name (the policy matches it as sent)
    `${request.server}${request.trusted ? "" : " (untrusted)"} wants to run ${
      request.tool.title ?? ApprovalRequest.neutralize(request.tool.name, "line")
    }`,
    `  arguments: ${JSON.stringify(request.arguments ?? {})}`,
    ...request.warnings.map((warning) => `  warning: ${warning.message}`)
  ].join("\n")

const TerminalApprover = Approver.layer((request) =>
  Effect.acquireUseRelease(
    Effect.sync(() => createInterface({ input: process.stdin, output: process.stdout })),
    (terminal) =>
      Effect.promise(() => terminal.question(`${describe(request)}\nrun it? [y]es / [a]lways / [n]o: `)).pipe(
        Effect.map((answer) => {
          switch (answer.trim().toLowerCase()) {
            case "y":
            case "yes":
              return ApprovalDecision.approveOnce
            case "a":
            case "always":
              return ApprovalDecision.approveAlways
            default:
              return ApprovalDecision.deny("declined in the terminal")
          }
        })
      ),
    (terminal) => Effect.sync(() => terminal.close())
  )
)

// --- the policy and the history, stored in files through KeyValueStore ---
const AppServices = Layer.mergeAll(
  ApprovalPolicy.layer({
    mode: "trusted-only",
    tools: { "*": { deny: ["get-env"] }, everything: { allow: ["echo"] } }
  }),
  ToolCallLog.layer({ retention: 500 }),
  TerminalApprover
).pipe(Layer.provide(NodeKeyValueStore.layerFileSystem(join(homedir(), ".mcp-effect-approval"))))

// --- a client with the services in its context: every call goes through them ---
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const Client = McpClient.layer({
  clientInfo: { name: "approval-example", version: "1.0.0" },
  server: "everything",
  trusted: false
}).pipe(
  Layer.provideMerge(AppServices),
  Layer.provide(NodeStdioTransport.layer({ command: process.execPath, args: [everything, "stdio"] }))
)

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  for (
    const params of [
      { name: "echo", arguments: { message: "on the allow list: runs unasked" } },
      { name: "get-sum", arguments: { a: 1, b: 2 } },
      { name: "get-env" }
    ]
  ) {
    yield* client.callTool(params).pipe(
      Effect.flatMap((result) => Console.log(`${params.name}:`, JSON.stringify(result.content))),
      Effect.catchIf(
        (error): error is McpError.ApprovalDenied => error._tag === "ApprovalDenied",
        (denied) => Console.log(`${params.name}: not run (${denied.reason})`)
      )
    )
  }
  const log = yield* ToolCallLog.ToolCallLog
  for (const record of yield* log.records.get) {
    yield* Console.log(`${DateTime.formatIso(record.startedAt)}  ${record.server}/${record.tool}  ${record.status}`)
  }
})

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.runPromise(Effect.provide(program, Client)).catch((error) => {
    console.error(McpError.isMcpClientError(error) ? error.message : error)
    process.exitCode = 1
  })
}
