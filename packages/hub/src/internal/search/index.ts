import * as McpApps from "@mcp-effect/core/McpApps"
import type * as ServerRegistry from "../../ServerRegistry.js"
import type * as ToolSearch from "../../ToolSearch.js"
import { hints, synonyms, words, wordsOf } from "./text.js"

/**
 * BM25F over the fields of a tool, weighted: a word in the tool's name
 * counts more than one in a parameter's description. A query's words match
 * as given, and their synonyms at a lower weight.
 */
const fields = ["name", "title", "description", "parameters", "server"] as const
type Field = typeof fields[number]

const weights: Record<Field, number> = {
  name: 3,
  title: 2.5,
  description: 1,
  parameters: 0.4,
  server: 1.5
}
const lengthNormalisation: Record<Field, number> = {
  name: 0.3,
  title: 0.3,
  description: 0.75,
  parameters: 0.75,
  server: 0
}
const k1 = 1.2
/**
 * A server's instructions are indexed once, as a document of the server: a
 * tool gets this share of its server's score (so a request naming what a
 * server is for lifts its tools), without indexing the instructions again
 * with each tool.
 */
const instructionsShare = 0.25
/** Parameter text past this many characters is not indexed (a schema may be huge; the first properties tell most). */
const maxParameterText = 4000
const synonymWeight = 0.5
/** A word that is the whole of a tool's name (`echo`) is worth a little more. */
const exactNameBonus = 0.5

/**
 * The parameter names and descriptions (and string enum values) of a tool's
 * input schema, top level and one level down, up to `maxParameterText`
 * characters: a schema may be huge, and its first properties tell most.
 */
const parameterText = (schema: unknown): string => {
  const parts: Array<string> = []
  let length = 0
  const add = (text: string) => {
    parts.push(text)
    length += text.length + 1
  }
  const walk = (node: unknown, depth: number) => {
    if (typeof node !== "object" || node === null || depth > 1 || length > maxParameterText) return
    const properties = "properties" in node ? node.properties : undefined
    if (typeof properties !== "object" || properties === null) return
    for (const key in properties) {
      if (length > maxParameterText) return
      add(key)
      const value: unknown = (properties as Record<string, unknown>)[key]
      if (typeof value !== "object" || value === null) continue
      if ("description" in value && typeof value.description === "string") add(value.description.slice(0, 500))
      if ("enum" in value && Array.isArray(value.enum)) {
        for (const item of value.enum.slice(0, 20)) if (typeof item === "string") add(item)
      }
      walk(value, depth + 1)
      if ("items" in value) walk(value.items, depth + 1)
    }
  }
  walk(schema, 0)
  return parts.join(" ")
}

/** Per word, the weighted term frequency of each field, length-normalised and summed (BM25F). */
const termWeights = (doc: Record<Field, ReadonlyArray<string>>, averages: Record<Field, number>) => {
  const out = new Map<string, number>()
  for (const field of fields) {
    const list = doc[field]
    if (list.length === 0) continue
    const b = lengthNormalisation[field]
    // each occurrence adds the same amount, so no count per field is needed
    const each = weights[field] / ((1 - b) + b * (list.length / Math.max(averages[field], 1)))
    for (const word of list) out.set(word, (out.get(word) ?? 0) + each)
  }
  return out
}

/** The tools having a word, and its weight in each: two arrays side by side. */
interface Postings {
  readonly docs: Array<number>
  readonly weights: Array<number>
}

/**
 * Adds each query word's score to `scores`: once per document, as given or
 * through its best synonym (at a lower weight), so a word with many
 * synonyms does not outweigh the others; a document whose name is the word
 * gets a bonus.
 */
const addScores = (
  scores: Float64Array,
  postings: ReadonlyMap<string, Postings>,
  count: number,
  queryWords: ReadonlyArray<string>,
  wholeName: ReadonlyMap<string, ReadonlyArray<number>> | undefined
) => {
  const idf = (documents: number) => Math.log(1 + (count - documents + 0.5) / (documents + 0.5))
  const best = new Float64Array(count)
  const touched: Array<number> = []
  const take = (term: string, boost: number) => {
    const list = postings.get(term)
    if (list === undefined) return
    const weight = boost * idf(list.docs.length)
    for (let i = 0; i < list.docs.length; i++) {
      const doc = list.docs[i]!
      const tf = list.weights[i]!
      const score = weight * (tf / (k1 + tf))
      if (best[doc] === 0) touched.push(doc)
      if (score > best[doc]!) best[doc] = score
    }
  }
  for (const word of queryWords) {
    take(word, 1)
    for (const other of synonyms.get(word) ?? []) take(other, synonymWeight)
    const list = postings.get(word)
    if (list !== undefined && wholeName !== undefined) {
      const bonus = exactNameBonus * idf(list.docs.length)
      for (const doc of wholeName.get(word) ?? []) {
        if (best[doc] === 0) touched.push(doc)
        best[doc]! += bonus
      }
    }
    for (const doc of touched) {
      scores[doc]! += best[doc]!
      best[doc] = 0
    }
    touched.length = 0
  }
}

/** @internal */
export const make = (
  tools: ReadonlyArray<ServerRegistry.HubTool>,
  options?: ToolSearch.IndexOptions
): ToolSearch.Index => {
  const docs = tools.filter((entry) => McpApps.isModelVisible(entry.tool))
  const serverIndex = new Map<string, number>()
  const serverWords = new Map<string, ReadonlyArray<string>>()
  const serverOf = new Uint32Array(docs.length)
  const split = docs.map((entry, index): Record<Field, ReadonlyArray<string>> => {
    let server = serverWords.get(entry.server)
    if (server === undefined) {
      server = wordsOf(entry.server)
      serverWords.set(entry.server, server)
      serverIndex.set(entry.server, serverIndex.size)
    }
    serverOf[index] = serverIndex.get(entry.server)!
    const tool = entry.tool
    return {
      name: wordsOf(`${tool.name} ${entry.name === tool.name ? "" : entry.name}`),
      title: wordsOf(tool.title ?? tool.annotations?.title ?? ""),
      description: wordsOf(tool.description ?? ""),
      parameters: wordsOf(parameterText(tool.inputSchema)),
      server
    }
  })
  const averages = {} as Record<Field, number>
  for (const field of fields) {
    averages[field] = split.length === 0 ? 0 : split.reduce((sum, doc) => sum + doc[field].length, 0) / split.length
  }
  const postings = new Map<string, Postings>()
  const wholeName = new Map<string, Array<number>>()
  split.forEach((doc, index) => {
    for (const [word, weight] of termWeights(doc, averages)) {
      let list = postings.get(word)
      if (list === undefined) postings.set(word, list = { docs: [], weights: [] })
      list.docs.push(index)
      list.weights.push(weight)
    }
    if (doc.name.length === 1) {
      const list = wholeName.get(doc.name[0]!) ?? []
      list.push(index)
      wholeName.set(doc.name[0]!, list)
    }
  })
  const count = docs.length

  // the servers' instructions, one document per server
  const servers = serverIndex.size
  const instructionWords = [...serverIndex.keys()].map((server) => wordsOf(options?.instructions?.get(server) ?? ""))
  const averageInstructions = servers === 0 ? 0 : instructionWords.reduce((sum, list) => sum + list.length, 0) / servers
  const serverPostings = new Map<string, Postings>()
  instructionWords.forEach((list, index) => {
    if (list.length === 0) return
    const each = 1 / (0.5 + 0.5 * (list.length / Math.max(averageInstructions, 1)))
    const weights = new Map<string, number>()
    for (const word of list) weights.set(word, (weights.get(word) ?? 0) + each)
    for (const [word, weight] of weights) {
      let entry = serverPostings.get(word)
      if (entry === undefined) serverPostings.set(word, entry = { docs: [], weights: [] })
      entry.docs.push(index)
      entry.weights.push(weight)
    }
  })

  const search = (query: string, searchOptions?: ToolSearch.SearchOptions): ReadonlyArray<ToolSearch.Hit> => {
    const limit = Math.max(0, Math.min(searchOptions?.limit ?? 5, 100))
    if (limit === 0 || count === 0) return []
    const allowed = searchOptions?.servers === undefined ? undefined : new Set(searchOptions.servers)
    const queryWords = [...new Set([...words(query), ...hints(query)])]
    const scores = new Float64Array(count)
    addScores(scores, postings, count, queryWords, wholeName)
    if (serverPostings.size > 0) {
      const serverScores = new Float64Array(servers)
      addScores(serverScores, serverPostings, servers, queryWords, undefined)
      for (let doc = 0; doc < count; doc++) scores[doc]! += instructionsShare * serverScores[serverOf[doc]!]!
    }
    const ranked: Array<number> = []
    for (let doc = 0; doc < count; doc++) {
      if (scores[doc]! <= 0) continue
      if (allowed !== undefined && !allowed.has(docs[doc]!.server)) continue
      ranked.push(doc)
    }
    ranked.sort((a, b) => scores[b]! - scores[a]! || a - b)
    return ranked.slice(0, limit).map((doc) => ({
      name: docs[doc]!.name,
      server: docs[doc]!.server,
      tool: docs[doc]!.tool,
      score: scores[doc]!
    }))
  }

  return { size: count, tools: docs, search }
}
