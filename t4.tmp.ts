import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Effect from "effect/Effect"
import { execSync } from "node:child_process"
const Hub = NodeHub.layer({
  config: { mcpServers: { ev: { command: "node", args: ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"], trusted: false } } },
})
const t0 = Date.now()
const pids = () => execSync(`ps -o pid=,args= --ppid ${process.pid}`).toString().split("\n").filter((l) => l.includes("server-everything/dist")).map((l) => l.trim().split(" ")[0])
Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.awaitReady()
  console.log("pids", pids())
  const f = registry.callTool("trigger-long-running-operation", { duration: 5, steps: 5 }).pipe(Effect.either, Effect.fork)
  const fib = yield* f
  yield* Effect.sleep("500 millis")
  execSync(`kill -9 ${pids().join(" ")}`)
  const r = yield* fib.await
  console.log("killed call ->", Date.now() - t0, JSON.stringify(r).slice(0, 600))
  const s = yield* registry.servers.get
  console.log(s.map((x) => `${x.name} ${x._tag} ${x.lastError}`))
  const r2 = yield* registry.callTool("echo", { message: "again" }).pipe(Effect.either)
  console.log("echo after ->", Date.now() - t0, JSON.stringify(r2).slice(0, 300))
  console.log("pids", pids())
  const r3 = yield* registry.callTool("get-sum", { a: 1, b: 2 }).pipe(Effect.either)
  console.log("sum", JSON.stringify(r3).slice(0, 200))
}).pipe(Effect.provide(Hub), Effect.runPromise).then(() => console.log("done", Date.now() - t0, pids()), (e) => console.log("ERR", e))
