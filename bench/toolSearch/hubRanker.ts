/**
 * The hub's own ranker (`ToolSearch.makeIndex`: BM25F with identifiers split,
 * field weights, server name and instructions, synonyms) in the shape of the
 * tool-search bench's `Ranker`: `build` indexes the corpus, the search
 * answers `server/tool` ids, best first. Typed structurally, so it needs
 * nothing of the bench but the tools it is given.
 */
import * as ToolFormat from "@mcp-effect/hub/ToolFormat"
import * as ToolSearch from "@mcp-effect/hub/ToolSearch"

interface BenchTool {
  readonly id: string
  readonly server: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: { readonly [key: string]: unknown }
  readonly serverInstructions?: string | undefined
}

interface BenchServer {
  readonly server: string
  readonly instructions?: string | undefined
  readonly tools: ReadonlyArray<{ readonly name: string }>
}

/** The registry's view of a bench tool: its id, made provider-safe, stands for the registry name. */
const hubTool = (tool: BenchTool) => ({
  name: tool.id.replace(/[^a-zA-Z0-9_-]/g, "_"),
  server: tool.server,
  tool: {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: { type: "object" as const, ...tool.inputSchema }
  }
})

export const hubRanker = {
  name: "hub ToolSearch (BM25F + synonyms)",
  build: (tools: ReadonlyArray<BenchTool>) => {
    const instructions = new Map<string, string>()
    for (const tool of tools) {
      if (tool.serverInstructions !== undefined) instructions.set(tool.server, tool.serverInstructions)
    }
    const index = ToolSearch.makeIndex(tools.map(hubTool), { instructions })
    return (query: string, limit: number): ReadonlyArray<string> =>
      index.search(query, { limit }).map((hit) => `${hit.server}/${hit.tool.name}`)
  },
  /** The deferred conversation's payload: the `search_tools` meta-tool with the catalogue, as an Anthropic tool. */
  deferredPayload: (servers: ReadonlyArray<BenchServer>): string => {
    const statuses = servers.map((server) => ({
      _tag: "Connected" as const,
      name: server.server,
      transport: "stdio" as const,
      trusted: false,
      toolCount: server.tools.length,
      sessionId: undefined,
      protocolVersion: undefined,
      serverInfo: undefined,
      instructions: server.instructions,
      lastError: undefined,
      warnings: []
    }))
    const tools = servers.flatMap((server) =>
      server.tools.map((tool) => ({
        name: tool.name.replace(/[^a-zA-Z0-9_-]/g, "_"),
        server: server.server,
        tool: { name: tool.name, inputSchema: { type: "object" as const } }
      }))
    )
    return JSON.stringify([ToolFormat.anthropicTool(ToolSearch.makeSearchTool(ToolSearch.catalogue(statuses, tools)))])
  }
}
