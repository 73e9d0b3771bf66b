import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
const require = createRequire(import.meta.url)
const ev = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const fs = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js")
const node = process.execPath
const config = {
  mcpServers: {
    everything: { command: node, args: [ev, "stdio"], trusted: true },
    files: { command: node, args: [fs, "/tmp/tcli"] },
    missing: { command: "no-such-cmd-xyz", args: [] },
    exits: { command: node, args: ["-e", "console.error('bad config: FOO missing'); process.exit(3)"] },
    garbage: { command: "sh", args: ["-c", `echo 'hello this is not json'; echo '{"foo":1}'; exec ${node} ${ev} stdio`] },
    chatty: { command: "sh", args: ["-c", `head -c 5000000 /dev/zero | tr '\\0' 'x' >&2; yes 'stderr line' | head -n 200000 >&2; exec ${node} ${ev} stdio`] },
    silent: { command: node, args: ["-e", "setInterval(()=>{},1000)"] }
  }
}
const t0 = Date.now()
const program = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  let last = ""
  yield* Effect.forkScoped(registry.servers.changes.pipe(Stream.runForEach((ss) => { const line = ss.map((s) => `${s.name}=${s._tag}`).join(" "); if (line === last) return Effect.void; last = line; return Console.log(Date.now() - t0, line) })))
  for (const s of yield* registry.awaitReady({ timeout: "40 seconds" })) {
    yield* Console.log(`${Date.now() - t0}ms ${s.name}: ${s._tag} (${s.toolCount} tools) ${s.lastError ?? ""}`.slice(0, 600))
  }
  yield* Effect.sleep("5 seconds")
}).pipe(Effect.scoped, Effect.provide(NodeHub.layer({ config, approval: { mode: "auto" } })))
Effect.runPromise(program).then(() => console.log("done", Date.now() - t0), (e) => console.log("FAIL", e))
