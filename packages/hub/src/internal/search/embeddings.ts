import * as Effect from "effect/Effect"
import type * as ServerRegistry from "../../ServerRegistry.js"
import type * as ToolSearch from "../../ToolSearch.js"

/** Reciprocal rank fusion's constant: ranks past the first few matter less and less. */
const fusion = 60
/** How deep into BM25's ranking the fusion looks. */
const depth = 50

const textOf = (tool: ServerRegistry.HubTool) =>
  [tool.server, tool.tool.name, tool.tool.title ?? "", tool.tool.description ?? ""].join(" ").slice(0, 2000)

const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/**
 * BM25 and embeddings, fused: each tool scores `1/(60 + rank)` in each
 * ranking it is in. Tool vectors are cached by tool text (a changed
 * description is embedded again); the cache keeps only the current tools.
 */
export const ranker = (embeddings: ToolSearch.Embeddings["Type"]) => {
  let cache = new Map<string, ReadonlyArray<number>>()
  return (
    index: ToolSearch.Index,
    query: string,
    options: ToolSearch.SearchOptions | undefined
  ): Effect.Effect<ReadonlyArray<ToolSearch.Hit>> => {
    const limit = Math.max(0, Math.min(options?.limit ?? 5, 100))
    const lexical = index.search(query, { ...options, limit: depth })
    const allowed = options?.servers === undefined ? undefined : new Set(options.servers)
    const candidates = index.tools.filter((tool) => allowed === undefined || allowed.has(tool.server))
    const texts = candidates.map(textOf)
    const missing = [...new Set(texts.filter((text) => !cache.has(text)))]
    return Effect.map(embeddings.embed([query, ...missing]), ([queryVector, ...vectors]) => {
      const next = new Map<string, ReadonlyArray<number>>()
      for (const tool of index.tools) {
        const text = textOf(tool)
        const known = cache.get(text)
        if (known !== undefined) next.set(text, known)
      }
      missing.forEach((text, i) => next.set(text, vectors[i] ?? []))
      cache = next
      const semantic = candidates
        .map((tool, i) => ({ tool, score: cosine(queryVector ?? [], next.get(texts[i]!) ?? []) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, depth)
      const fused = new Map<string, { tool: ServerRegistry.HubTool; score: number }>()
      const add = (tool: ServerRegistry.HubTool, rank: number) => {
        const entry = fused.get(tool.name) ?? { tool, score: 0 }
        entry.score += 1 / (fusion + rank)
        fused.set(tool.name, entry)
      }
      lexical.forEach((hit, rank) => add(hit, rank))
      semantic.forEach((entry, rank) => add(entry.tool, rank))
      return [...fused.values()]
        .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1))
        .slice(0, limit)
        .map(({ score, tool }) => ({ name: tool.name, server: tool.server, tool: tool.tool, score }))
    }).pipe(
      // the error is left out of the log: an embedding client's error may carry its credentials
      Effect.catchAll(() =>
        Effect.as(
          Effect.logWarning("tool search: the embedding ranker failed, BM25 alone answers"),
          index.search(query, options)
        )
      )
    )
  }
}
