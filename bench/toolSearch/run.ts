/**
 * The tool-search bench: every ranker of `rankers.ts` on the captured corpus
 * (`bench/fixtures/tool-corpus/`) and the labelled queries
 * (`bench/fixtures/tool-queries.json`). Part of `npm run bench` (`--only tools`
 * for this group alone) and runnable alone:
 *
 * ```
 * npx tsx bench/toolSearch/run.ts
 * ```
 *
 * Metric lines go to stdout; see the tool-search section of bench/README.md.
 */
import { pathToFileURL } from "node:url"
import { loadQueries, loadServers, loadTools } from "./corpus.js"
import { deferredPayload, definitionsPayload, type Recall, scoreRanker, tokens } from "./measure.js"
import { rankers } from "./rankers.js"

const percent = (value: number) => `${(value * 100).toFixed(1)}%`
const recallText = (recall: Recall) =>
  `@1=${percent(recall.at[1])} @5=${percent(recall.at[5])} @10=${percent(recall.at[10])}`

/** Prints the tool-search metric lines with `print`, progress with `log`. */
export const toolSearch = (
  print: (line: string) => void,
  log: (line: string) => void,
  options: { readonly latencyTools?: number; readonly rounds?: number } = {}
) => {
  const servers = loadServers()
  const tools = loadTools(servers)
  const queries = loadQueries()
  const lexical = queries.filter((query) => query.kind === "lexical").length
  const latencyTools = options.latencyTools ?? 600
  const rounds = options.rounds ?? 20
  log(
    `tool search: ${tools.length} tools of ${servers.length} servers, ${queries.length} queries ` +
      `(${lexical} lexical, ${queries.length - lexical} paraphrase); latency at ${latencyTools} tools, ${rounds} rounds`
  )
  for (const ranker of rankers) {
    const scores = scoreRanker(ranker, tools, queries, { latencyTools, rounds })
    print(
      `tool search recall (${scores.ranker}): all ${recallText(scores.all)}; ` +
        `lexical ${recallText(scores.lexical)}; paraphrase ${recallText(scores.paraphrase)} (higher is better)`
    )
    print(
      `tool search latency at ${latencyTools} tools (${scores.ranker}): p50=${scores.searchP50.toFixed(3)} ` +
        `p95=${scores.searchP95.toFixed(3)} cpu-p95=${scores.searchCpuP95.toFixed(3)} build=${
          scores.build.toFixed(2)
        } ` +
        `build-cpu=${scores.buildCpu.toFixed(2)} (ms, lower is better)`
    )
    if (ranker.deferredPayload !== undefined) {
      print(
        `tool search deferred payload tokens (${ranker.name}, o200k_base): ${
          tokens(ranker.deferredPayload(servers))
        } ` +
          `(lower is better)`
      )
    }
  }
  const whole = tokens(definitionsPayload(tools))
  const deferred = tokens(deferredPayload(servers))
  print(
    `tool definitions tokens (o200k_base): whole corpus=${whole} deferred payload=${deferred} ` +
      `ratio=${(deferred / whole).toFixed(3)} (lower is better)`
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  toolSearch((line) => process.stdout.write(line + "\n"), (line) => process.stderr.write(line + "\n"))
}
