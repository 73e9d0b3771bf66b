/**
 * Cold start, ours: a fresh Node process imports the client, spawns the
 * stdio fixture (`process.argv[2..]`), initializes and calls `echo` once.
 * When the first result is in, prints the milliseconds since the process
 * started (`performance.now()`) and the CPU milliseconds it has used
 * (`process.cpuUsage()`, user + system), then exits. Bundled by `bench/cold.ts`.
 */
import { McpClient } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const [command, ...args] = process.argv.slice(2)

Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* client.callTool({ name: "echo", arguments: { text: "hello" } })
  const cpu = process.cpuUsage()
  process.stdout.write(`${performance.now()} ${(cpu.user + cpu.system) / 1000} ${JSON.stringify(result.content)}\n`)
}).pipe(
  Effect.provide(
    McpClient.layer({ clientInfo: { name: "bench-cold", version: "1.0.0" }, prefetch: false }).pipe(
      Layer.provide(NodeStdioTransport.layer({ command: command!, args, env: { NODE_NO_WARNINGS: "1" } }))
    )
  ),
  Effect.runPromise
).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
