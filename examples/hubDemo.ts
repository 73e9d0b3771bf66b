/**
 * The hub demo: many servers from an `mcpServers` file, a live status
 * table, the aggregated tools, a few calls routed by name, and (with
 * `--approval always-ask` or `trusted-only`) a terminal prompt before each
 * call that needs one.
 *
 *   npm run demo -- --config examples/mcp.json
 *   npm run demo -- --config examples/mcp.json --approval always-ask
 *   npm run demo -- --config examples/mcp.json --deferred --approval always-ask
 *
 * `--deferred` shows tool search instead of the full tool list: the payload a
 * model gets in deferred mode (the `search_tools` meta-tool with its
 * catalogue, next to what every tool would cost), a `search_tools` call as a
 * model would make it, and a call to the tool it activated, through the
 * approval policy like any other.
 *
 * `examples/mcp.json` (Claude Desktop format) runs server-everything and the
 * filesystem server; `${MCP_DEMO_DIR}` in it is set here to a fresh temporary
 * directory, through the ConfigProvider.
 */
import { ApprovalDecision, type ApprovalPolicy, ApprovalRequest, type McpSchema, ToolCallLog } from "@mcp-effect/core"
import { ServerRegistry, ToolFormat, ToolSearch } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"

const argv = process.argv.slice(2)
const option = (name: string) => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1] : undefined
}
const configPath = option("--config") ?? "examples/mcp.json"
const mode = (option("--approval") ?? "auto") as ApprovalPolicy.Mode
const deferred = argv.includes("--deferred")
const demoDir = mkdtempSync(join(tmpdir(), "mcp-hub-demo-"))

// ---- the terminal prompt: one line reader for the whole run, answers may be piped in -------

const answers = Effect.runSync(Queue.unbounded<string | undefined>())
const lines = createInterface({ input: process.stdin })
lines.on("line", (line) => Queue.unsafeOffer(answers, line))
// closed stdin (`</dev/null`, or the input ran out) answers every question left with "no"
let stdinClosed = false
lines.on("close", () => {
  stdinClosed = true
  Queue.unsafeOffer(answers, undefined)
})
const nextAnswer = Effect.flatMap(
  Queue.poll(answers),
  (answer) =>
    answer._tag === "Some"
      ? Effect.succeed(answer.value)
      : stdinClosed
      ? Effect.succeed(undefined)
      : Queue.take(answers)
)

/** Bold on a terminal; plain text when stdout is a file or a pipe. */
const bold = (text: string) => process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text

const ask = (request: ApprovalRequest.ApprovalRequest) =>
  Effect.gen(function*() {
    yield* Console.log(
      `\n  ${request.server}${request.trusted ? "" : " (untrusted)"} wants to run ${
        ApprovalRequest.neutralize(request.tool.name, "line")
      } ` +
        `${JSON.stringify(request.arguments ?? {})}`
    )
    for (const warning of request.warnings) yield* Console.log(`  warning: ${warning.message}`)
    yield* Effect.sync(() => process.stdout.write("  allow? [y]es / [a]lways / [n]o: "))
    const answer = (yield* nextAnswer)?.trim().toLowerCase()
    yield* Console.log(answer ?? "(stdin closed: no)")
    return answer === "y" || answer === "yes"
      ? ApprovalDecision.approveOnce
      : answer === "a" || answer === "always"
      ? ApprovalDecision.approveAlways
      : ApprovalDecision.deny("declined in the terminal")
  })

// ---- output ----------------------------------------------------------------------------

const table = (statuses: ReadonlyArray<ServerRegistry.ServerStatus>) =>
  statuses.map((s) =>
    `  ${s.name.padEnd(12)} ${s._tag.padEnd(12)} ${(s.transport ?? "-").padEnd(6)} ` +
    `${String(s.toolCount).padStart(3)} tools  ${s.protocolVersion ?? ""}` +
    (s.lastError === undefined ? "" : `  (${ApprovalRequest.neutralize(s.lastError.message, "line")})`)
  ).join("\n")

const settled = (statuses: ReadonlyArray<ServerRegistry.ServerStatus>) =>
  statuses.every((s) =>
    s._tag === "Disabled" || s._tag === "Failed" || s._tag === "NeedsAuth" ||
    (s._tag === "Connected" && s.toolCount > 0)
  )

const textOf = (result: McpSchema.CallToolResult) =>
  result.content.map((c) => c.type === "text" ? c.text : `[${c.type}]`).join(" ").replace(/\s+/g, " ").slice(0, 100)

/** A result's text lines, indented. */
const linesOf = (result: McpSchema.CallToolResult) =>
  result.content.map((c) => c.type === "text" ? c.text : `[${c.type}]`).join("\n").split("\n").map((line) =>
    `  ${line}`
  ).join("\n")

// ---- the run ---------------------------------------------------------------------------

/** Every tool offered, and a few calls routed by name. */
const allTools = (registry: ServerRegistry.Service) =>
  Effect.gen(function*() {
    const tools = yield* registry.tools.get
    yield* Console.log(`\n${bold(`== Tools (${tools.length})`)}`)
    for (const tool of tools) {
      yield* Console.log(
        `  ${tool.name.padEnd(32)} ${tool.server.padEnd(12)} ${tool.name === tool.tool.name ? "" : tool.tool.name}`
      )
    }

    yield* Console.log(`\n${bold("== Calls")}`)
    const has = (name: string) => tools.some((t) => t.name === name)
    const call = (name: string, args: Record<string, unknown>) =>
      has(name)
        ? registry.callTool(name, args).pipe(
          Effect.matchEffect({
            onFailure: (error) => Console.log(`  ${name} -> ${error._tag}: ${error.message}`),
            onSuccess: (result) => Console.log(`  ${name} -> ${textOf(result)}`)
          })
        )
        : Effect.void
    yield* call("echo", { message: "hello from the hub" })
    yield* call("write_file", { path: join(demoDir, "hello.txt"), content: "written through the hub\n" })
    yield* call("list_directory", { path: demoDir })
    yield* call("echo", { message: "once more" })
  })

/** Tool search: the deferred payload, a search as the model makes it, a call to a tool it activated. */
const deferredRun = (registry: ServerRegistry.Service) =>
  Effect.gen(function*() {
    const chat = yield* ToolSearch.conversation(`demo-${Date.now()}`)
    const all = yield* registry.tools.get
    const offered = yield* chat.tools
    const payload = offered.map((t) => ToolFormat.anthropicTool(t))
    yield* Console.log(`\n${bold("== Model-facing payload (deferred)")}`)
    yield* Console.log(
      `  ${offered.length} tool(s), about ${ToolSearch.estimateTokens(payload)} tokens ` +
        `(every tool: ${all.length} tools, about ${
          ToolSearch.estimateTokens(all.map((t) => ToolFormat.anthropicTool(t)))
        } tokens)`
    )
    yield* Console.log(offered[0]!.tool.description!.split("\n").map((line) => `  | ${line}`).join("\n"))

    const query = "save text to a file on disk"
    yield* Console.log(
      `\n${bold("== Search")} (the model calls ${ToolSearch.searchToolName} ${JSON.stringify({ query, limit: 3 })})`
    )
    const found = yield* chat.callTool(ToolSearch.searchToolName, { query, limit: 3 })
    yield* Console.log(linesOf(found))
    yield* Console.log(`  next turn offers: ${(yield* chat.tools).map((t) => t.name).join(", ")}`)

    yield* Console.log(`\n${bold("== Activated call")}`)
    const name = (yield* chat.activated).find((n) => all.some((t) => t.name === n && t.tool.name === "write_file"))
    if (name === undefined) return yield* Console.log("  write_file was not found")
    yield* chat.callTool(name, { path: join(demoDir, "hello.txt"), content: "written through tool search\n" }).pipe(
      Effect.matchEffect({
        onFailure: (error) => Console.log(`  ${name} -> ${error._tag}: ${error.message}`),
        onSuccess: (result) => Console.log(`  ${name} -> ${textOf(result)}`)
      })
    )
  })

const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  const log = yield* ToolCallLog.ToolCallLog

  yield* Console.log(`${bold("== Servers")} (${configPath}, approval: ${mode})`)
  let printed = ""
  yield* registry.servers.changes.pipe(
    Stream.tap((statuses) => {
      const text = table(statuses)
      if (text === printed) return Effect.void
      const redraw = process.stdout.isTTY && printed !== "" ? `\x1b[${printed.split("\n").length}A\x1b[J` : ""
      printed = text
      return Effect.sync(() => process.stdout.write(`${redraw}${text}\n${process.stdout.isTTY ? "" : "\n"}`))
    }),
    Stream.takeUntil(settled),
    Stream.runDrain,
    Effect.timeout("60 seconds"),
    Effect.ignore
  )

  if (deferred) yield* deferredRun(registry)
  else yield* allTools(registry)

  yield* Console.log(`\n${bold("== History")}`)
  for (const record of yield* log.records.get) {
    yield* Console.log(`  ${record.server.padEnd(12)} ${record.tool.padEnd(20)} ${record.status}`)
  }
})

const Hub = NodeHub.layer({
  config: configPath,
  approval: { mode },
  approver: ask
})

/** Runs the demo; `examples/demo.ts` dispatches here on `--config`. */
export const run = program.pipe(
  Effect.provide(Hub),
  Effect.withConfigProvider(
    ConfigProvider.fromMap(new Map([["MCP_DEMO_DIR", demoDir]])).pipe(
      ConfigProvider.orElse(() => ConfigProvider.fromEnv())
    )
  ),
  Logger.withMinimumLogLevel(LogLevel.Error),
  Effect.catchAll((error) =>
    Console.error(`demo failed: ${error._tag}: ${error.message}`).pipe(
      Effect.zipRight(Effect.sync(() => process.exitCode = 1))
    )
  ),
  Effect.ensuring(Effect.sync(() => lines.close()))
)

export const main = (): Promise<void> => Effect.runPromise(run).then(() => process.exit(process.exitCode ?? 0))
