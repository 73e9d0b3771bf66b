import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { readFileSync, existsSync, rmSync } from "node:fs"
import { execSync } from "node:child_process"
const rec = "/tmp/tcli/rec2.ndjson"
if (existsSync(rec)) rmSync(rec)
const node = process.execPath
const config = { mcpServers: { rec: { command: node, args: [process.cwd() + "/test-fixtures/recording-server.mjs"], env: { RECORD_FILE: rec }, trusted: true } } }
const read = () => existsSync(rec) ? readFileSync(rec, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : []
const t0 = Date.now()
const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.awaitReady()
  for (let i = 0; i < 8; i++) {
    const f = yield* Effect.fork(registry.callTool("slow", { steps: 50, intervalMs: 100 }))
    yield* Effect.sleep("150 millis")
    yield* Fiber.interrupt(f)
  }
  // re-run while running
  const a = yield* Effect.fork(registry.callTool("slow", { steps: 5, intervalMs: 100 }))
  const b = yield* Effect.fork(registry.callTool("slow", { steps: 5, intervalMs: 100 }))
  yield* Console.log("a", JSON.stringify((yield* Fiber.join(a)).content), "b", JSON.stringify((yield* Fiber.join(b)).content))
  yield* Effect.sleep("300 millis")
  const r = read()
  yield* Console.log("calls", r.filter((x) => x.message?.method === "tools/call").length, "cancelled", r.filter((x) => x.message?.method === "notifications/cancelled").length, "aborted", r.filter((x) => x.event === "aborted").length)
  // in-flight calls, then close
  for (let i = 0; i < 3; i++) yield* Effect.fork(registry.callTool("slow", { steps: 100, intervalMs: 100 }))
  yield* Effect.sleep("300 millis")
}).pipe(Effect.scoped, Effect.provide(NodeHub.layer({ config, approval: { mode: "auto" } })))
Effect.runPromise(program).then(() => {
  console.log("closed after", Date.now() - t0)
  const r = read()
  console.log("after close: calls", r.filter((x) => x.message?.method === "tools/call").length, "cancelled", r.filter((x) => x.message?.method === "notifications/cancelled").length, "aborted", r.filter((x) => x.event === "aborted").length)
  console.log(execSync("ps -ef | grep recording-server | grep -v grep || true").toString())
}, (e) => console.log("FAIL", e))
