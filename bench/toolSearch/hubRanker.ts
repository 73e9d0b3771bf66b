/**
 * The hub's own ranker (`ToolSearch.makeIndex`: BM25F with identifiers split,
 * field weights, server name and instructions, synonyms) in the shape of the
 * tool-search bench's `Ranker`: `build` indexes the corpus, the search
 * answers `server/tool` ids, best first. Typed structurally, so it needs
 * nothing of the bench but the tools it is given.
 */
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

export const hubRanker = {
  name: "hub ToolSearch (BM25F + synonyms)",
  build: (tools: ReadonlyArray<BenchTool>) => {
    const instructions = new Map<string, string>()
    for (const tool of tools) if (tool.serverInstructions !== undefined) instructions.set(tool.server, tool.serverInstructions)
    const index = ToolSearch.makeIndex(
      tools.map((tool) => ({
        // the registry name is unique: the bench's id, made provider-safe, stands for it
        name: tool.id.replace(/[^a-zA-Z0-9_-]/g, "_"),
        server: tool.server,
        tool: {
          name: tool.name,
          ...(tool.title === undefined ? {} : { title: tool.title }),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: { type: "object", ...tool.inputSchema }
        }
      })),
      { instructions }
    )
    return (query: string, limit: number): ReadonlyArray<string> =>
      index.search(query, { limit }).map((hit) => `${hit.server}/${hit.tool.name}`)
  }
}
