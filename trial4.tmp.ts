import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
const require = createRequire(import.meta.url)
const fs = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js")
const node = process.execPath
const trusted = process.argv[2] === "trusted"
const config = { mcpServers: { files: { command: node, args: [fs, "/tmp/tcli"], trusted } } }
const t0 = Date.now()
const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.awaitReady()
  yield* Effect.forkScoped(registry.servers.changes.pipe(Stream.runForEach((ss) => Console.log(Date.now() - t0, ss.map((s) => `${s.name}=${s._tag} ${s.lastError ?? ""}`.slice(0, 200)).join(" ")))))
  const tools = yield* registry.tools.get
  const readTool = tools.find((t) => t.tool.name === "read_text_file")!
  console.log(readTool.name, JSON.stringify(readTool.tool.annotations))
  for (const file of ["/tmp/tcli/big.txt", "/tmp/tcli/huge.txt"]) {
    const t1 = Date.now()
    const r = yield* Effect.either(registry.callTool(readTool.name, { path: file }))
    console.log(file, Date.now() - t1, "ms", r._tag === "Right" ? JSON.stringify(r.right).length : String(r.left).slice(0, 400))
  }
  const r = yield* Effect.either(registry.callTool("list_directory", { path: "/tmp/tcli" }))
  console.log("after:", r._tag, r._tag === "Left" ? String(r.left).slice(0, 300) : "")
}).pipe(Effect.scoped, Effect.provide(NodeHub.layer({ config, approval: { mode: "auto" } })))
Effect.runPromise(program).then(() => console.log("done", Date.now() - t0), (e) => console.log("FAIL", e))
