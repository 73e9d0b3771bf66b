import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Effect from "effect/Effect"
const Hub = NodeHub.layer({
  config: { mcpServers: { files: { command: "node", args: ["node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "/tmp/tc/fs"], trusted: true } } },
})
const t0 = Date.now()
Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.awaitReady()
  const tools = yield* registry.tools.get
  console.log(tools.map((t) => t.name + ":" + JSON.stringify(t.tool.annotations ?? {})).join("\n"))
  for (const f of ["big.txt", "huge.txt"]) {
    const r = yield* registry.callTool("read_text_file", { path: "/tmp/tc/fs/" + f }).pipe(Effect.either, Effect.timeout("40 seconds"), Effect.either)
    console.log(f, Date.now() - t0, JSON.stringify(r).slice(0, 400))
  }
  const s = yield* registry.servers.get
  console.log(s.map((x) => `${x.name} ${x._tag} ${x.lastError}`))
}).pipe(Effect.provide(Hub), Effect.runPromise).then(() => console.log("done", Date.now() - t0), (e) => console.log("ERR", e))
