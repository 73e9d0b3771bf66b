import * as ApprovalRequest from "@mcp-effect/core/ApprovalRequest"
import * as McpApps from "@mcp-effect/core/McpApps"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Effect from "effect/Effect"
import type * as McpToolkit from "../../McpToolkit.js"
import * as ServerRegistry from "../../ServerRegistry.js"
import type * as ToolSearch from "../../ToolSearch.js"

const searchToolName = "search_tools"
const defaultPrefix = "mcp-effect/hub/tool-search"
const summaryLength = 100
const namesShown = 4

/** The first sentence of a text's first line that is not a Markdown heading, neutralised and capped. */
const line = (text: string, max: number) => {
  const lines = ApprovalRequest.neutralize(text).split("\n").map((l) => l.trim())
  const first = lines.find((l) => l !== "" && !l.startsWith("#")) ?? ""
  const flat = first.replace(/\s+/g, " ")
  const sentence = flat.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? flat
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1)}…`
}

/** @internal */
export const catalogue = (
  servers: ReadonlyArray<ServerRegistry.ServerStatus>,
  tools: ReadonlyArray<ServerRegistry.HubTool>
): string => {
  const byServer = new Map<string, Array<string>>()
  for (const tool of tools) {
    if (tool.name === searchToolName || !McpApps.isModelVisible(tool.tool)) continue
    const names = byServer.get(tool.server) ?? []
    names.push(tool.name)
    byServer.set(tool.server, names)
  }
  const lines: Array<string> = []
  for (const status of servers) {
    const names = byServer.get(status.name)
    if (names === undefined) continue
    const about = status.instructions ?? status.serverInfo?.description ?? status.serverInfo?.title
    const summary = about === undefined || about.trim() === "" ? "" : `: ${line(about, summaryLength)}`
    const shown = names.slice(0, namesShown).join(", ")
    lines.push(
      `- ${line(status.name, 64)} (${names.length} tools)${summary} [${shown}${names.length > namesShown ? ", …" : ""}]`
    )
  }
  return lines.join("\n")
}

/** @internal */
export const searchToolOf = (text: string): McpSchema.Tool => ({
  name: searchToolName,
  title: "Search tools",
  description: "Finds tools of the connected servers by what they do and makes the tools found callable from " +
    "your next turn. Describe the action in a few words; name a server to search only its tools.\n" +
    `Servers:\n${text}`,
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "what the tool should do, in a few words" },
      servers: { type: "array", items: { type: "string" }, description: "only tools of these servers" },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "the most tools to activate (default 5)" }
    },
    required: ["query"],
    additionalProperties: false
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
})

const storage = (error: unknown) =>
  new ServerRegistry.RegistryError({
    reason: "Storage",
    message: "the activated tools could not be stored",
    cause: error
  })

const errorResult = (text: string): McpSchema.CallToolResult => ({ content: [{ type: "text", text }], isError: true })

/** The `search_tools` arguments, or why they are not. */
const searchArguments = (args: Record<string, unknown>) => {
  const { limit, query, servers } = args
  if (typeof query !== "string" || query.trim() === "") return "search_tools needs a non-empty string `query`"
  if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1)) {
    return "`limit` must be a positive integer"
  }
  if (servers !== undefined && (!Array.isArray(servers) || !servers.every((s) => typeof s === "string"))) {
    return "`servers` must be an array of server names"
  }
  return { query, limit: limit as number | undefined, servers: servers as ReadonlyArray<string> | undefined }
}

const foundText = (hits: ReadonlyArray<ToolSearch.Hit>) =>
  hits.length === 0
    ? "No tool matches. Try other words, or another server from the list."
    : `Callable from your next turn:\n${
      hits.map((hit) =>
        `- ${hit.name} (server ${hit.server})${
          hit.tool.description === undefined ? "" : `: ${line(hit.tool.description, 160)}`
        }`
      )
        .join("\n")
    }`

/** @internal */
export const make = (
  id: string,
  options?: ToolSearch.ConversationOptions
) =>
  Effect.gen(function*() {
    const registry = yield* ServerRegistry.ServerRegistry
    const shared = yield* SharedStore.fromContext
    const records = shared.collection(`${options?.prefix ?? defaultPrefix}/${encodeURIComponent(id)}`)
    const mode = options?.mode ?? "deferred"
    const pinned = new Set(options?.pinned ?? [])
    const limit = Math.min(options?.limit ?? 5, 20)

    // in deferred mode the meta-tool owns its name: a server's tool of that name is never offered
    const offered = Effect.map(
      registry.tools.get,
      (tools) => tools.filter((t) => McpApps.isModelVisible(t.tool) && (mode === "all" || t.name !== searchToolName))
    )
    const activated = Effect.mapError(
      Effect.map(records.list, (list) => list.map(([name]) => name)),
      storage
    )
    const store = (names: ReadonlyArray<string>) =>
      Effect.mapError(Effect.forEach(names, (name) => records.put(name, "1"), { discard: true }), storage)

    const searchTool = Effect.map(
      Effect.zip(registry.servers.get, offered),
      ([servers, tools]) => searchToolOf(catalogue(servers, tools))
    )

    const search = (query: string, searchOptions?: ToolSearch.SearchOptions) =>
      Effect.gen(function*() {
        const hits = (yield* registry.searchTools(query, { ...searchOptions, limit: searchOptions?.limit ?? limit }))
          .filter((hit) => mode === "all" || hit.name !== searchToolName)
        yield* store(hits.map((hit) => hit.name))
        return hits
      })

    const conversation: ToolSearch.Conversation = {
      id,
      mode,
      tools: Effect.gen(function*() {
        const tools = yield* offered
        if (mode === "all") return tools
        const active = new Set(yield* activated)
        const meta: McpToolkit.SourceTool = { name: searchToolName, tool: yield* searchTool }
        return [meta, ...tools.filter((t) => pinned.has(t.name) || active.has(t.name))]
      }),
      searchTool,
      activated,
      activate: (names) =>
        Effect.gen(function*() {
          const known = new Set((yield* offered).map((t) => t.name))
          const unknown = names.find((name) => !known.has(name))
          if (unknown !== undefined) return yield* new ServerRegistry.UnknownTool({ name: unknown })
          yield* store(names)
        }),
      reset: Effect.flatMap(activated, (names) =>
        Effect.mapError(Effect.forEach(names, (name) => records.remove(name), { discard: true }), storage)),
      search,
      callTool: (name, args, callOptions) => {
        if (mode === "deferred" && name === searchToolName) {
          const parsed = searchArguments(args ?? {})
          if (typeof parsed === "string") {
            return Effect.succeed(errorResult(parsed))
          }
          return Effect.map(
            search(parsed.query, { limit: Math.min(parsed.limit ?? limit, 20), servers: parsed.servers }),
            (hits): McpSchema.CallToolResult => ({
              content: [{ type: "text", text: foundText(hits) }],
              structuredContent: { tools: hits.map((hit) => ({ name: hit.name, server: hit.server })) }
            })
          )
        }
        return registry.callTool(name, args, callOptions)
      }
    }
    return conversation
  })
