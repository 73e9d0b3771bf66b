/**
 * The plain BM25 baseline: one bag of words per tool (name, title,
 * description, the server name), words are runs of letters and digits,
 * lower-cased. No identifier splitting (`create_issue` stays one word,
 * `createIssue` too), no stop words, no stemming, no field weights, no
 * parameter text. k1 = 1.2, b = 0.75.
 */
import type { Ranker } from "./ranker.js"

const k1 = 1.2
const b = 0.75

/** Whole words: `create_issue` and `createIssue` are single words. */
const words = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []

export const bm25: Ranker = {
  name: "plain BM25",
  build: (tools) => {
    const docs = tools.map((tool) => {
      const terms = words([tool.server, tool.name, tool.title ?? "", tool.description ?? ""].join(" "))
      const tf = new Map<string, number>()
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1)
      return { id: tool.id, length: terms.length, tf }
    })
    const df = new Map<string, number>()
    for (const doc of docs) for (const term of doc.tf.keys()) df.set(term, (df.get(term) ?? 0) + 1)
    const n = docs.length
    const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(n, 1)
    const idf = new Map<string, number>()
    for (const [term, count] of df) idf.set(term, Math.log(1 + (n - count + 0.5) / (count + 0.5)))
    return (query, limit) => {
      const terms = [...new Set(words(query))].filter((term) => idf.has(term))
      if (terms.length === 0) return []
      const scored: Array<{ readonly id: string; readonly score: number }> = []
      for (const doc of docs) {
        let score = 0
        for (const term of terms) {
          const f = doc.tf.get(term)
          if (f === undefined) continue
          score += idf.get(term)! * (f * (k1 + 1)) / (f + k1 * (1 - b + b * doc.length / avgLength))
        }
        if (score > 0) scored.push({ id: doc.id, score })
      }
      scored.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1))
      return scored.slice(0, limit).map((entry) => entry.id)
    }
  }
}
