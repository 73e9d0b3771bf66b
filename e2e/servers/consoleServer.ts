/**
 * The MCP server of the console's demo and end-to-end suite, on the official
 * SDK's low-level `Server` (so tools can carry icons): tools with every
 * annotation the console shows, a long-running tool with progress that stops
 * when cancelled, the same as a task (`execution.taskSupport: "required"`,
 * an in-memory task store: `tasks/get`, `tasks/result`, `tasks/cancel`), a
 * failing tool and one that asks the user (elicitation).
 */
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js"

const icon = (color: string, glyph: string) =>
  `data:image/svg+xml,${
    encodeURIComponent(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><rect width="20" height="20" rx="4" fill="${color}"/>` +
        `<text x="10" y="14" font-size="11" text-anchor="middle" fill="#fff" font-family="sans-serif">${glyph}</text></svg>`
    )
  }`

export const tools: ReadonlyArray<Tool> = [
  {
    name: "search_docs",
    title: "Search the docs",
    description: "Searches the public documentation (read-only, reaches the internet)",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string", description: "what to look for" } },
      required: ["query"]
    },
    annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
    icons: [{ src: icon("#1971c2", "S"), mimeType: "image/svg+xml" }]
  },
  {
    name: "delete_file",
    title: "Delete a file",
    description: "Deletes a file in the workspace",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    annotations: { destructiveHint: true, openWorldHint: false },
    icons: [{ src: icon("#c92a2a", "D"), mimeType: "image/svg+xml" }]
  },
  {
    name: "echo",
    title: "Echo",
    description: "Says the text back",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true, openWorldHint: false },
    icons: [{ src: icon("#2b8a3e", "E"), mimeType: "image/svg+xml" }]
  },
  {
    name: "build_report",
    title: "Build a report",
    description: "A long job: one progress step every 200 ms until done or cancelled",
    inputSchema: {
      type: "object",
      properties: { steps: { type: "integer", description: "how many steps" } },
      required: ["steps"]
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    icons: [{ src: icon("#5f3dc4", "R"), mimeType: "image/svg+xml" }]
  },
  {
    name: "export_archive",
    title: "Export an archive",
    description: "Runs as a task (tasks/get to follow it, tasks/cancel to stop it): one step every 200 ms",
    inputSchema: { type: "object", properties: { steps: { type: "integer" } }, required: ["steps"] },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    execution: { taskSupport: "required" },
    icons: [{ src: icon("#e8590c", "A"), mimeType: "image/svg+xml" }]
  },
  {
    name: "sync_inventory",
    title: "Sync the inventory",
    description: "Always fails: the upstream database is unreachable",
    inputSchema: { type: "object", properties: {} },
    annotations: { destructiveHint: false, openWorldHint: true }
  },
  {
    name: "ask_name",
    title: "Ask for a name",
    description: "Asks the user for a name (elicitation) and greets them",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false }
  }
]

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

/**
 * A server per session; `aborted` collects the `build_report` calls whose
 * signal the SDK aborted (`notifications/cancelled`) and the `export_archive`
 * tasks that stopped because they were cancelled (`task:<id>`).
 */
export const makeConsoleServer = (aborted: Array<string>) => {
  const server = new Server({ name: "console-fixture", version: "1.0.0" }, {
    capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {}, list: {} } },
    taskStore: new InMemoryTaskStore()
  })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...tools] }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>
    switch (request.params.name) {
      case "search_docs":
        return text(`3 results for "${String(args.query)}"`)
      case "delete_file":
        return text(`deleted ${String(args.path)}`)
      case "echo":
        return text(String(args.text))
      case "build_report": {
        const steps = Math.min(Math.max(Number(args.steps) || 10, 1), 600)
        const token = request.params._meta?.progressToken
        extra.signal.addEventListener("abort", () => aborted.push(String(extra.requestId)), { once: true })
        for (let step = 1; step <= steps && !extra.signal.aborted; step++) {
          await new Promise((resolve) => setTimeout(resolve, 200))
          if (token !== undefined && !extra.signal.aborted) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: step, total: steps, message: `step ${step} of ${steps}` }
            })
          }
        }
        return text(`report of ${steps} steps ready`)
      }
      case "export_archive": {
        const store = extra.taskStore
        if (store === undefined || request.params.task === undefined) {
          throw new Error("export_archive runs as a task only")
        }
        const steps = Math.min(Math.max(Number(args.steps) || 10, 1), 600)
        const task = await store.createTask({ ttl: 60_000, pollInterval: 200 })
        void (async () => {
          for (let step = 1; step <= steps; step++) {
            await new Promise((resolve) => setTimeout(resolve, 200))
            if ((await store.getTask(task.taskId)).status === "cancelled") {
              return void aborted.push(`task:${task.taskId}`)
            }
            if (step < steps) await store.updateTaskStatus(task.taskId, "working", `step ${step} of ${steps}`)
          }
          await store.storeTaskResult(task.taskId, "completed", text(`archive of ${steps} steps exported`))
        })()
        return { task }
      }
      case "sync_inventory":
        return { ...text("upstream database unreachable (ECONNREFUSED 10.0.0.7:5432)"), isError: true }
      case "ask_name": {
        const answer = await server.elicitInput({
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
        })
        return text(answer.action === "accept" ? `hello ${String(answer.content?.name)}` : `no name (${answer.action})`)
      }
      default:
        throw new Error(`unknown tool ${request.params.name}`)
    }
  })
  return server
}
