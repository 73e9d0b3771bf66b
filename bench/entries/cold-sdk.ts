/**
 * Cold start, the official SDK: the same as `cold-ours.ts` with its
 * `Client` and `StdioClientTransport`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const [command, ...args] = process.argv.slice(2)

const main = async () => {
  const client = new Client({ name: "bench-cold", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: command!,
      args,
      env: { ...(process.env as Record<string, string>), NODE_NO_WARNINGS: "1" }
    })
  )
  const result = await client.callTool({ name: "echo", arguments: { text: "hello" } })
  const cpu = process.cpuUsage()
  process.stdout.write(`${performance.now()} ${(cpu.user + cpu.system) / 1000} ${JSON.stringify(result.content)}\n`)
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
