/**
 * The tool-search figures: recall@1/5/10 of each ranker on the labelled
 * queries (whole set and each half), search p95 and index build time at 600
 * tools, and the token size of the corpus as tool definitions against a
 * deferred payload.
 *
 * Recall@k of one query is |top k ∩ expected| / min(|expected|, k): a query
 * that several servers serve is fully recalled at 1 by any one of them, and at
 * 5 only by five of them (or all, when fewer). The figure is the mean over the
 * queries.
 */
import { Tiktoken } from "js-tiktoken/lite"
import o200k_base from "js-tiktoken/ranks/o200k_base"
import type { CorpusServer, Query, ServerTool } from "./corpus.js"
import type { Ranker } from "./ranker.js"

export const cutoffs = [1, 5, 10] as const

export interface Recall {
  readonly queries: number
  /** Mean recall at 1, 5 and 10, in [0, 1]. */
  readonly at: Readonly<Record<(typeof cutoffs)[number], number>>
}

export interface RankerScores {
  readonly ranker: string
  readonly all: Recall
  readonly lexical: Recall
  readonly paraphrase: Recall
  /** Milliseconds per search at 600 tools: the median over rounds of each round's p50 / p95. */
  readonly searchP50: number
  readonly searchP95: number
  /** The same p95 in CPU time (user + system) of this process: what a search costs when the machine is busy. */
  readonly searchCpuP95: number
  /** Milliseconds to build the index of 600 tools (median). */
  readonly build: number
  /** The same in CPU time (user + system). */
  readonly buildCpu: number
}

const recallOf = (search: (query: string, limit: number) => ReadonlyArray<string>, queries: ReadonlyArray<Query>) => {
  const sums = { 1: 0, 5: 0, 10: 0 }
  for (const query of queries) {
    const found = search(query.query, 10)
    const expected = new Set(query.expected)
    for (const k of cutoffs) {
      const hits = found.slice(0, k).filter((id) => expected.has(id)).length
      sums[k] += hits / Math.min(expected.size, k)
    }
  }
  const n = Math.max(queries.length, 1)
  return { queries: queries.length, at: { 1: sums[1] / n, 5: sums[5] / n, 10: sums[10] / n } }
}

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

const median = (values: ReadonlyArray<number>) => quantile([...values].sort((a, b) => a - b), 0.5)

/**
 * Exactly `size` tools: the corpus cut, or repeated under renamed servers
 * (`<server>~2`) when it has fewer.
 */
export const toolsAt = (tools: ReadonlyArray<ServerTool>, size: number): ReadonlyArray<ServerTool> => {
  const out: Array<ServerTool> = []
  for (let round = 1; out.length < size; round++) {
    for (const tool of tools) {
      if (out.length === size) break
      const server = round === 1 ? tool.server : `${tool.server}~${round}`
      out.push({ ...tool, server, id: `${server}/${tool.name}` })
    }
  }
  return out
}

export const scoreRanker = (
  ranker: Ranker,
  tools: ReadonlyArray<ServerTool>,
  queries: ReadonlyArray<Query>,
  options: { readonly latencyTools: number; readonly rounds: number }
): RankerScores => {
  const search = ranker.build(tools)
  const recall = (kind?: Query["kind"]) =>
    recallOf(search, kind === undefined ? queries : queries.filter((q) => q.kind === kind))

  const sized = toolsAt(tools, options.latencyTools)
  const builds: Array<number> = []
  const buildsCpu: Array<number> = []
  let sizedSearch = ranker.build(sized)
  for (let i = 0; i < options.rounds; i++) {
    const start = performance.now()
    const startCpu = process.cpuUsage()
    sizedSearch = ranker.build(sized)
    const usage = process.cpuUsage(startCpu)
    builds.push(performance.now() - start)
    buildsCpu.push((usage.user + usage.system) / 1000)
  }
  // warm up once; then, per round (after a GC when `--expose-gc` allows it), time every query and take
  // that round's p50 and p95; the figures are the medians over the rounds, so one round that a busy
  // machine preempted does not set them
  for (const query of queries) sizedSearch(query.query, 10)
  const gc = (globalThis as { readonly gc?: () => void }).gc
  const p50s: Array<number> = []
  const p95s: Array<number> = []
  const cpuP95s: Array<number> = []
  for (let i = 0; i < options.rounds; i++) {
    gc?.()
    const times: Array<number> = []
    const cpu: Array<number> = []
    for (const query of queries) {
      const start = performance.now()
      const startCpu = process.cpuUsage()
      sizedSearch(query.query, 10)
      const usage = process.cpuUsage(startCpu)
      times.push(performance.now() - start)
      cpu.push((usage.user + usage.system) / 1000)
    }
    times.sort((a, b) => a - b)
    cpu.sort((a, b) => a - b)
    p50s.push(quantile(times, 0.5))
    p95s.push(quantile(times, 0.95))
    cpuP95s.push(quantile(cpu, 0.95))
  }
  return {
    ranker: ranker.name,
    all: recall(),
    lexical: recall("lexical"),
    paraphrase: recall("paraphrase"),
    searchP50: median(p50s),
    searchP95: median(p95s),
    searchCpuP95: median(cpuP95s),
    build: median(builds),
    buildCpu: median(buildsCpu)
  }
}

let encoder: Tiktoken | undefined
/** Tokens of `text` with OpenAI's `o200k_base` encoding (js-tiktoken). */
export const tokens = (text: string): number => {
  encoder ??= new Tiktoken(o200k_base)
  return encoder.encode(text).length
}

/** Every tool as a provider tool definition (`name`, `description`, `input_schema`), serialized as JSON. */
export const definitionsPayload = (tools: ReadonlyArray<ServerTool>): string =>
  JSON.stringify(tools.map((tool) => ({
    name: `${tool.server}__${tool.name}`,
    description: tool.description ?? tool.title ?? "",
    input_schema: tool.inputSchema
  })))

/** The first sentence of `text`, at most `max` characters. */
const firstSentence = (text: string, max: number) => {
  // markdown headings are titles, not summaries
  const flat = text.split("\n").filter((line) => !line.trimStart().startsWith("#")).join(" ").replace(/\s+/g, " ")
    .trim()
  const end = flat.search(/[.!?](\s|$)/)
  const sentence = end === -1 ? flat : flat.slice(0, end + 1)
  return sentence.length <= max ? sentence : sentence.slice(0, max - 1) + "…"
}

/**
 * The reference deferred payload: one catalogue line per server (its name,
 * tool count, the first sentence of its instructions when it has any, else
 * its first tool names) and the `search_tools` meta-tool definition. This is
 * what the model sees before it searches; the hub's own catalogue may differ.
 */
export const deferredPayload = (servers: ReadonlyArray<CorpusServer>): string => {
  const lines = servers.map((server) => {
    const summary = server.instructions !== undefined && server.instructions.trim() !== ""
      ? firstSentence(server.instructions, 100)
      : server.tools.slice(0, 4).map((tool) => tool.name).join(", ") + (server.tools.length > 4 ? ", …" : "")
    return `- ${server.server} (${server.tools.length} tools): ${summary}`
  })
  const catalogue = `Tools of these servers are loaded on demand; call search_tools to find them.\n${lines.join("\n")}`
  const searchTools = {
    name: "search_tools",
    description:
      "Search the tools of every connected server by what you want to do. The tools found become callable on your next turn.",
    input_schema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What the tool should do, in a few words" },
        servers: { type: "array", items: { type: "string" }, description: "Only these servers (optional)" },
        limit: { type: "integer", minimum: 1, maximum: 20, description: "How many tools (default 5)" }
      },
      required: ["query"]
    }
  }
  return `${catalogue}\n${JSON.stringify([searchTools])}`
}
