import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { readFileSync, existsSync, rmSync } from "node:fs"
import { execSync } from "node:child_process"
const rec = "/tmp/tcli/rec3.ndjson"
if (existsSync(rec)) rmSync(rec)
const node = process.execPath
const mode = process.argv[2] ?? "calls"
const config = { mcpServers: { rec: { command: node, args: [process.cwd() + "/test-fixtures/recording-server.mjs"], env: { RECORD_FILE: rec }, trusted: true } } }
const read = () => existsSync(rec) ? readFileSync(rec, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : []
const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  if (mode === "handshake") { yield* registry.awaitReady(); return }
  yield* registry.awaitReady()
  yield* Effect.all([1, 2, 3].map(() => registry.callTool("slow", { steps: 100, intervalMs: 100 })), { concurrency: "unbounded" })
}).pipe(Effect.provide(NodeHub.layer({ config, approval: { mode: "auto" } })))
const fiber = Effect.runFork(program)
const t0 = Date.now()
setTimeout(() => {
  const t1 = Date.now()
  console.log("interrupting at", t1 - t0, "ps:", execSync("ps -eo pid,args | grep [r]ecording-server.mjs || true").toString().trim().split("\n"))
  Effect.runPromise(Fiber.interrupt(fiber)).then(() => {
    console.log("interrupt took", Date.now() - t1)
    const r = read()
    console.log("calls", r.filter((x) => x.message?.method === "tools/call").length, "cancelled", r.filter((x) => x.message?.method === "notifications/cancelled").length, "aborted", r.filter((x) => x.event === "aborted").length, "started", r.filter((x) => x.event === "started").length)
    console.log("ps after:", execSync("ps -eo pid,args | grep [r]ecording-server.mjs || true").toString())
  })
}, Number(process.argv[3] ?? 2500))
