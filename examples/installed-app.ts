/**
 * The program the pack check (`npm run check:packages`) type-checks and runs in a fresh app
 * that installed the packed tarballs: the README's quick start over stdio, with the server
 * command taken from the command line.
 *
 *   node installed-app.js <command> [args...]
 */
import { McpClient } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import { Effect, Layer } from "effect"

const [command = "npx", ...args] = process.argv.slice(2)

const Client = McpClient.layer({ clientInfo: { name: "installed-app", version: "1.0.0" } }).pipe(
  Layer.provide(NodeStdioTransport.layer({ command, args }))
)

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools
  const result = yield* client.callTool({ name: "echo", arguments: { message: "from an installed app" } })
  const text = result.content.flatMap((block) => block.type === "text" ? [block.text] : []).join("")
  console.log(JSON.stringify({ tools: tools.length, echo: text }))
})

Effect.runPromise(Effect.provide(program, Client)).catch((error) => {
  console.error(error)
  process.exit(1)
})
