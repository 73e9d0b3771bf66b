/**
 * The tool-search corpus: one JSON per captured server in
 * `bench/fixtures/tool-corpus/` (see `capture.ts`), and the labelled queries
 * in `bench/fixtures/tool-queries.json` (checked by
 * `scripts/check-tool-queries.mjs`).
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** A tool exactly as its server listed it. */
export interface CorpusTool {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: { readonly [key: string]: unknown }
  readonly annotations?: { readonly [key: string]: unknown } | undefined
}

/** One captured server. */
export interface CorpusServer {
  readonly server: string
  readonly package: string
  readonly version: string
  readonly instructions?: string | undefined
  readonly tools: ReadonlyArray<CorpusTool>
}

/** A tool of the corpus with its server; `id` is `server/tool`. */
export interface ServerTool extends CorpusTool {
  readonly id: string
  readonly server: string
  readonly serverInstructions?: string | undefined
}

export interface Query {
  readonly query: string
  readonly kind: "lexical" | "paraphrase"
  /** Every tool that serves the request, as `server/tool`. */
  readonly expected: ReadonlyArray<string>
}

const corpusDir = new URL("../fixtures/tool-corpus/", import.meta.url)
const queriesFile = new URL("../fixtures/tool-queries.json", import.meta.url)

/** Every captured server, by file name order. */
export const loadServers = (): ReadonlyArray<CorpusServer> =>
  readdirSync(fileURLToPath(corpusDir))
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => JSON.parse(readFileSync(fileURLToPath(new URL(file, corpusDir)), "utf8")) as CorpusServer)

/** Every tool of every server, flattened. */
export const loadTools = (servers: ReadonlyArray<CorpusServer> = loadServers()): ReadonlyArray<ServerTool> =>
  servers.flatMap((server) =>
    server.tools.map((tool) => ({
      ...tool,
      id: `${server.server}/${tool.name}`,
      server: server.server,
      ...(server.instructions !== undefined ? { serverInstructions: server.instructions } : {})
    }))
  )

export const loadQueries = (): ReadonlyArray<Query> =>
  (JSON.parse(readFileSync(fileURLToPath(queriesFile), "utf8")) as { readonly queries: ReadonlyArray<Query> }).queries
