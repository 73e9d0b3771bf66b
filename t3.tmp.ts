import { ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
const Hub = NodeHub.layer({
  config: { mcpServers: { ev: { command: "node", args: ["/tmp/tc/tee.js"], trusted: true } } },
})
const t0 = Date.now()
const mode = process.argv[2]
const main = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.awaitReady()
  console.log("ready", Date.now() - t0)
  if (mode === "fork") {
    yield* Effect.forkScoped(registry.callTool("trigger-long-running-operation", { duration: 10, steps: 5 }))
    yield* Effect.sleep("300 millis")
    return
  }
  yield* Effect.all([1,2,3].map(() => registry.callTool("trigger-long-running-operation", { duration: 10, steps: 5 })), { concurrency: "unbounded" })
}).pipe(Effect.scoped, Effect.provide(Hub))
const fiber = Effect.runFork(main)
if (mode !== "fork") setTimeout(() => { console.log("interrupt", Date.now() - t0); Effect.runFork(Fiber.interrupt(fiber)) }, 2500)
fiber.addObserver((exit) => console.log("exit", exit._tag, Date.now() - t0))
