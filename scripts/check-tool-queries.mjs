// Checks the tool-search bench's labelled queries (bench/fixtures/tool-queries.json) against the captured corpus
// (bench/fixtures/tool-corpus/*.json), so the "paraphrase" half is proved by a script and not by eye:
// - the corpus has at least 15 servers and 500 tools, tool names unique per server;
// - at least 200 queries, unique, each with a non-empty `expected` list of `server/tool` ids that all exist;
// - `kind` is "lexical" or "paraphrase", and each kind is at least 45 % of the set;
// - a paraphrase shares NO word with the name, title or description of ANY of its expected tools;
// - a lexical query shares at least one word with one of its expected tools.
//
// Words: lower-cased; identifiers split on camelCase and on every character that is not a letter or a digit
// (so `_ - . /` and spaces); words in STOP_WORDS dropped; then a plain suffix stemmer (see `stem`) so that
// "files"/"file", "created"/"create", "listing"/"list" count as the same word. The server name, the server's
// instructions and parameter names/descriptions are NOT in the compared text (the issue compares a request with
// the tool's name, title and description).
//
//   node scripts/check-tool-queries.mjs            exit 1 with one line per problem
//   node scripts/check-tool-queries.mjs --words    also print each paraphrase's words (for writing new ones)
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const corpusDir = path.join(root, "bench/fixtures/tool-corpus")
const queriesFile = path.join(root, "bench/fixtures/tool-queries.json")

/** Words that carry no meaning for matching; stated here so the check can be reproduced. */
export const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "can",
  "do",
  "for",
  "from",
  "has",
  "have",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "me",
  "my",
  "of",
  "on",
  "or",
  "our",
  "so",
  "that",
  "the",
  "their",
  "them",
  "then",
  "there",
  "these",
  "this",
  "those",
  "to",
  "up",
  "us",
  "was",
  "we",
  "what",
  "when",
  "where",
  "which",
  "who",
  "will",
  "with",
  "you",
  "your",
  "all",
  "any",
  "some",
  "please",
  "just",
  "out",
  "off",
  "about",
  "over",
  "how",
  "s",
  "t"
])

/** Plain suffix stemming: the longest of these suffixes is cut while at least 3 letters remain. */
const SUFFIXES = ["ing", "ies", "ied", "es", "ed", "s", "e", "y"]
export const stem = (word) => {
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length)
  }
  return word
}

export const words = (text) =>
  new Set(
    text
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
      .map(stem)
  )

const problems = []
const servers = fs.readdirSync(corpusDir).filter((file) => file.endsWith(".json")).sort()
  .map((file) => JSON.parse(fs.readFileSync(path.join(corpusDir, file), "utf8")))
const tools = new Map()
for (const server of servers) {
  for (const tool of server.tools) {
    const id = `${server.server}/${tool.name}`
    if (tools.has(id)) problems.push(`corpus: ${id} listed twice`)
    tools.set(id, words([tool.name, tool.title ?? "", tool.description ?? ""].join(" ")))
  }
}
if (servers.length < 15) problems.push(`corpus: ${servers.length} servers, want at least 15`)
if (tools.size < 500) problems.push(`corpus: ${tools.size} tools, want at least 500`)

const { queries } = JSON.parse(fs.readFileSync(queriesFile, "utf8"))
const seen = new Set()
const kinds = { lexical: 0, paraphrase: 0 }
const verbose = process.argv.includes("--words")
for (const [index, entry] of queries.entries()) {
  const where = `query ${index + 1} "${entry.query}"`
  if (typeof entry.query !== "string" || entry.query.trim() === "") problems.push(`${where}: no text`)
  if (seen.has(entry.query.toLowerCase())) problems.push(`${where}: duplicate`)
  seen.add(entry.query.toLowerCase())
  if (entry.kind !== "lexical" && entry.kind !== "paraphrase") {
    problems.push(`${where}: kind must be "lexical" or "paraphrase"`)
    continue
  }
  kinds[entry.kind]++
  if (!Array.isArray(entry.expected) || entry.expected.length === 0) {
    problems.push(`${where}: no expected tools`)
    continue
  }
  const asked = words(entry.query)
  let sharesAny = false
  for (const id of entry.expected) {
    const toolWords = tools.get(id)
    if (toolWords === undefined) {
      problems.push(`${where}: ${id} is not in the corpus`)
      continue
    }
    const shared = [...asked].filter((word) => toolWords.has(word))
    if (shared.length > 0) sharesAny = true
    if (entry.kind === "paraphrase" && shared.length > 0) {
      problems.push(`${where}: a paraphrase shares ${shared.join(", ")} with ${id}`)
    }
  }
  if (entry.kind === "lexical" && !sharesAny) problems.push(`${where}: a lexical query shares no word with its tools`)
  if (verbose && entry.kind === "paraphrase") console.log(`${[...asked].join(" ")}  <- ${entry.query}`)
}
if (queries.length < 200) problems.push(`queries: ${queries.length}, want at least 200`)
for (const kind of ["lexical", "paraphrase"]) {
  if (kinds[kind] < queries.length * 0.45) problems.push(`queries: ${kinds[kind]} ${kind}, want at least 45 %`)
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  console.error(`check-tool-queries: ${problems.length} problem(s)`)
  process.exit(1)
}
console.log(
  `check-tool-queries: ${queries.length} queries (${kinds.lexical} lexical, ${kinds.paraphrase} paraphrase) ` +
    `over ${tools.size} tools of ${servers.length} servers`
)
