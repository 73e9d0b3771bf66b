// A fixture MCP server over stdio, built with the official SDK's server classes.
// It appends every message it receives (and a few events) as NDJSON to the file
// named by RECORD_FILE, so tests can check what actually reached the server.
import { appendFileSync } from "node:fs"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { z } from "zod"

const recordFile = process.env.RECORD_FILE
const record = (entry) => {
  if (recordFile) appendFileSync(recordFile, JSON.stringify({ pid: process.pid, ...entry }) + "\n")
}

const server = new McpServer({ name: "recording-server", version: "1.0.0" }, { capabilities: { logging: {} } })
const text = (value) => ({ content: [{ type: "text", text: value }] })

server.registerTool("echo", { description: "Echoes its input", inputSchema: { text: z.string() } }, async ({ text: t }) =>
  text(t))

server.registerTool(
  "slow",
  { description: "Sends progress every interval until done or cancelled", inputSchema: { steps: z.number(), intervalMs: z.number() } },
  async ({ intervalMs, steps }, extra) => {
    extra.signal.addEventListener("abort", () => record({ event: "aborted", requestId: extra.requestId }))
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
      if (extra.signal.aborted) return text("aborted")
      const token = extra._meta?.progressToken
      if (token !== undefined) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } })
      }
    }
    return text(`done after ${steps} steps`)
  }
)

server.registerTool("sample", { description: "Asks the client's model", inputSchema: { prompt: z.string() } }, async ({ prompt }) => {
  const result = await server.server.createMessage({
    messages: [{ role: "user", content: { type: "text", text: prompt } }],
    maxTokens: 50
  })
  return text(`model ${result.model} said: ${result.content.text}`)
})

server.registerTool("elicit", { description: "Asks the user", inputSchema: {} }, async () => {
  const result = await server.server.elicitInput({
    mode: "form",
    message: "Your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string", default: "anonymous" } } }
  })
  return text(`${result.action}: ${JSON.stringify(result.content ?? {})}`)
})

server.registerTool("roots", { description: "Lists the client's roots", inputSchema: {} }, async () => {
  const result = await server.server.listRoots()
  return text(result.roots.map((root) => root.uri).join(","))
})

server.registerTool("crash", { description: "Exits the process mid-call", inputSchema: {} }, async () => {
  record({ event: "crash" })
  process.exit(1)
})

server.registerTool("garbage", { description: "Writes non-JSON lines to stdout, then answers", inputSchema: {} }, async () => {
  process.stdout.write("this is not json\n{\"jsonrpc\":\"2.0\",\"oops\":1}\n")
  return text("still here")
})

server.registerTool("pid", { description: "Returns the server's pid", inputSchema: {}, annotations: { readOnlyHint: true } }, async () =>
  text(String(process.pid)))

const transport = new StdioServerTransport()
await server.connect(transport)
const deliver = transport.onmessage
transport.onmessage = (message, extra) => {
  record({ message })
  deliver?.(message, extra)
}
record({ event: "started" })
