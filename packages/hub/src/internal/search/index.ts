import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as ServerRegistry from "../../ServerRegistry.js"
import type * as ToolSearch from "../../ToolSearch.js"
import { synonyms, words } from "./text.js"

/**
 * BM25F over the fields of a tool, weighted: a word in the tool's name
 * counts more than one in a parameter's description. A query's words match
 * as given, and their synonyms at a lower weight.
 */
const fields = ["name", "title", "description", "parameters", "server", "instructions"] as const
type Field = typeof fields[number]

const weights: Record<Field, number> = {
  name: 3,
  title: 2.5,
  description: 1,
  parameters: 0.6,
  server: 1.5,
  instructions: 0.25
}
const lengthNormalisation: Record<Field, number> = {
  name: 0.3,
  title: 0.3,
  description: 0.75,
  parameters: 0.75,
  server: 0,
  instructions: 0.5
}
const k1 = 1.2
const synonymWeight = 0.55
/** A word that is the whole of a tool's name (`echo`) is worth a little more. */
const exactNameBonus = 0.5

/** Whether a tool is for the model: MCP Apps' `_meta.ui.visibility`, when given, must name `"model"`. */
export const modelVisible = (tool: McpSchema.Tool): boolean => {
  const ui = tool._meta?.["ui"]
  if (typeof ui !== "object" || ui === null || !("visibility" in ui)) return true
  const visibility: unknown = ui.visibility
  return !Array.isArray(visibility) || visibility.includes("model")
}

/** The parameter names and descriptions of a tool's input schema (top level and one level down). */
const parameterText = (schema: unknown, depth = 0): string => {
  if (typeof schema !== "object" || schema === null || depth > 1) return ""
  const properties = "properties" in schema ? schema.properties : undefined
  if (typeof properties !== "object" || properties === null) return ""
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(properties)) {
    parts.push(key)
    if (typeof value === "object" && value !== null) {
      if ("description" in value && typeof value.description === "string") parts.push(value.description)
      if ("enum" in value && Array.isArray(value.enum)) {
        for (const item of value.enum) if (typeof item === "string") parts.push(item)
      }
      parts.push(parameterText(value, depth + 1))
      if ("items" in value) parts.push(parameterText(value.items, depth + 1))
    }
  }
  return parts.join(" ")
}

interface Posting {
  readonly doc: number
  readonly weight: number
}

const termWeights = (doc: Record<Field, ReadonlyArray<string>>, averages: Record<Field, number>) => {
  const out = new Map<string, number>()
  for (const field of fields) {
    const list = doc[field]
    if (list.length === 0) continue
    const b = lengthNormalisation[field]
    const norm = (1 - b) + b * (list.length / Math.max(averages[field], 1))
    const counts = new Map<string, number>()
    for (const word of list) counts.set(word, (counts.get(word) ?? 0) + 1)
    for (const [word, count] of counts) out.set(word, (out.get(word) ?? 0) + (weights[field] * count) / norm)
  }
  return out
}

/** @internal */
export const make = (
  tools: ReadonlyArray<ServerRegistry.HubTool>,
  options?: ToolSearch.IndexOptions
): ToolSearch.Index => {
  const docs = tools.filter((entry) => modelVisible(entry.tool))
  const instructions = options?.instructions
  const instructionWords = new Map<string, ReadonlyArray<string>>()
  const serverWords = new Map<string, ReadonlyArray<string>>()
  const split = docs.map((entry): Record<Field, ReadonlyArray<string>> => {
    let server = serverWords.get(entry.server)
    if (server === undefined) {
      server = words(entry.server)
      serverWords.set(entry.server, server)
    }
    let instruction = instructionWords.get(entry.server)
    if (instruction === undefined) {
      instruction = words(instructions?.get(entry.server) ?? "")
      instructionWords.set(entry.server, instruction)
    }
    const tool = entry.tool
    return {
      name: words(`${tool.name} ${entry.name === tool.name ? "" : entry.name}`),
      title: words(tool.title ?? tool.annotations?.title ?? ""),
      description: words(tool.description ?? ""),
      parameters: words(parameterText(tool.inputSchema)),
      server,
      instructions: instruction
    }
  })
  const averages = {} as Record<Field, number>
  for (const field of fields) {
    averages[field] = split.length === 0 ? 0 : split.reduce((sum, doc) => sum + doc[field].length, 0) / split.length
  }
  const postings = new Map<string, Array<Posting>>()
  const wholeName = new Map<string, Array<number>>()
  split.forEach((doc, index) => {
    for (const [word, weight] of termWeights(doc, averages)) {
      let list = postings.get(word)
      if (list === undefined) postings.set(word, list = [])
      list.push({ doc: index, weight })
    }
    if (doc.name.length === 1) {
      const list = wholeName.get(doc.name[0]!) ?? []
      list.push(index)
      wholeName.set(doc.name[0]!, list)
    }
  })
  const count = docs.length
  const idf = (documents: number) => Math.log(1 + (count - documents + 0.5) / (documents + 0.5))

  const search = (query: string, searchOptions?: ToolSearch.SearchOptions): ReadonlyArray<ToolSearch.Hit> => {
    const limit = Math.max(0, Math.min(searchOptions?.limit ?? 5, 100))
    if (limit === 0 || count === 0) return []
    const allowed = searchOptions?.servers === undefined ? undefined : new Set(searchOptions.servers)
    // each query word once, at its best weight (given beats synonym)
    const wanted = new Map<string, number>()
    for (const word of words(query)) {
      wanted.set(word, 1)
      for (const other of synonyms.get(word) ?? []) {
        if (!wanted.has(other)) wanted.set(other, synonymWeight)
      }
    }
    const scores = new Float64Array(count)
    for (const [word, boost] of wanted) {
      const list = postings.get(word)
      if (list === undefined) continue
      const weight = boost * idf(list.length)
      for (const posting of list) {
        scores[posting.doc]! += weight * (posting.weight / (k1 + posting.weight))
      }
      if (boost === 1) for (const doc of wholeName.get(word) ?? []) scores[doc]! += exactNameBonus * weight
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
