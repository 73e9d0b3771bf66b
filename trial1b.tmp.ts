import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
const require = createRequire(import.meta.url)
const ev = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const node = process.execPath
const config = {
  mcpServers: {
    garbage: { command: "sh", args: ["-c", `echo 'hello this is not json'; echo '{"foo":1}'; exec ${node} ${ev} stdio`] },
  }
}
const t0 = Date.now()
const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* Effect.forkScoped(registry.servers.changes.pipe(Stream.runForEach((ss) => Console.log(Date.now() - t0, ss.map((s) => `${s.name}=${s._tag} ${s.lastError ?? ""}`).join(" ")))))
  yield* registry.awaitReady({ timeout: "40 seconds" })
  yield* Effect.sleep("25 seconds")
}).pipe(Effect.scoped, Effect.provide(NodeHub.layer({ config, approval: { mode: "auto" } })))
Effect.runPromise(program).then(() => console.log("done", Date.now() - t0), (e) => console.log("FAIL", e))
