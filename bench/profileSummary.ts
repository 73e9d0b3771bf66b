/**
 * Summarises V8 profiles: `.cpuprofile` (from `node --cpu-prof` or
 * `bench/profile.ts --cpu-out`: self time) or `.heapprofile` (from
 * `node --heap-prof`: sampled allocations still live) as shares, by module
 * and by function. Given several files (repeated runs), each row shows the
 * median share and the range over the files. Idle time, `(program)` and the
 * inspector's own `dispatch` (building the profile when it stops) are left out.
 *
 * ```
 * npx tsx bench/profileSummary.ts <file>... [--top 25]
 * ```
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { median } from "./measure.js"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface CpuNode {
  readonly id: number
  readonly callFrame: CallFrame
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<CpuNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

interface HeapNode {
  readonly callFrame: CallFrame
  readonly selfSize: number
  readonly children: ReadonlyArray<HeapNode>
}

const { positionals: files, values: flags } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" } }
})
if (files.length === 0) throw new Error("usage: profileSummary.ts <file.cpuprofile|file.heapprofile>... [--top N]")
const top = Number(flags.top)

/** `effect/<Module>` for effect's files, the package-relative path for ours, `node:<x>` for Node's. */
const moduleOf = ({ functionName, url }: CallFrame): string => {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)"
  const effect = /node_modules\/(effect|@effect\/[^/]+)\/dist\/(?:esm|cjs)\/(.*)\.js$/.exec(url)
  if (effect !== null) return `${effect[1]}/${effect[2]}`
  const ours = /\/packages\/([^/]+)\/(?:src|dist)\/(.*)$/.exec(url)
  if (ours !== null) return `@mcp-effect/${ours[1]}/${ours[2]}`
  const other = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (other !== null) return other[1]!
  return url.replace(/^file:\/\/.*\/(bench|examples)\//, "$1/")
}

const frameName = (frame: CallFrame) =>
  `${frame.functionName || "(anonymous)"} ${moduleOf(frame)}:${frame.lineNumber + 1}`

const leftOut = (frame: CallFrame) =>
  frame.functionName === "(idle)" || frame.functionName === "(program)" ||
  (frame.functionName === "dispatch" && frame.url === "")

type Totals = Map<string, number>

const add = (totals: Totals, key: string, value: number) => totals.set(key, (totals.get(key) ?? 0) + value)

interface Summary {
  readonly byModule: Totals
  readonly byFunction: Totals
  readonly total: number
}

const summarise = (file: string): Summary => {
  const profile = JSON.parse(readFileSync(file, "utf8"))
  const byModule: Totals = new Map()
  const byFunction: Totals = new Map()
  const count = (frame: CallFrame, value: number) => {
    if (leftOut(frame) || value === 0) return
    add(byModule, moduleOf(frame), value)
    add(byFunction, frameName(frame), value)
  }
  if (file.endsWith(".cpuprofile")) {
    const { nodes, samples, timeDeltas } = profile as CpuProfile
    const frames = new Map(nodes.map((node) => [node.id, node.callFrame]))
    samples.forEach((id, i) => count(frames.get(id)!, timeDeltas[i] ?? 0))
  } else {
    // an allocation site is named with the nearest caller in our packages, which says who holds it
    const walk = (node: HeapNode, ours: string | undefined) => {
      const module = moduleOf(node.callFrame)
      const caller = module.startsWith("@mcp-effect/") ? frameName(node.callFrame) : ours
      if (!leftOut(node.callFrame) && node.selfSize > 0) {
        add(byModule, module, node.selfSize)
        add(
          byFunction,
          `${frameName(node.callFrame)}${
            ours === undefined || caller === frameName(node.callFrame) ? "" : ` <- ${ours}`
          }`,
          node.selfSize
        )
      }
      node.children.forEach((child) => walk(child, caller))
    }
    walk((profile as { head: HeapNode }).head, undefined)
  }
  return { byModule, byFunction, total: [...byModule.values()].reduce((a, b) => a + b, 0) }
}

const cpu = files.every((file) => file.endsWith(".cpuprofile"))
const unit = cpu
  ? (micros: number) => `${(micros / 1000).toFixed(0)} ms`
  : (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`
const summaries = files.map(summarise)

const print = (title: string, pick: (summary: Summary) => Totals) => {
  const keys = new Set(summaries.flatMap((summary) => [...pick(summary).keys()]))
  const rows = [...keys].map((key) => {
    const shares = summaries.map((summary) => ((pick(summary).get(key) ?? 0) / summary.total) * 100)
    return { key, median: median(shares), low: Math.min(...shares), high: Math.max(...shares) }
  })
  console.log(`\n${title}: median share over ${files.length} profile(s) (min-max)`)
  for (const row of rows.sort((a, b) => b.median - a.median).slice(0, top)) {
    const range = files.length > 1 ? ` (${row.low.toFixed(1)}-${row.high.toFixed(1)})` : ""
    console.log(`${row.median.toFixed(1).padStart(5)} %${range.padEnd(14)} ${row.key}`)
  }
}

console.log(
  `${cpu ? "self time" : "live sampled allocations"}, totals per profile: ${
    summaries.map((s) => unit(s.total)).join(", ")
  }`
)
print("by module", (summary) => summary.byModule)
print("by function", (summary) => summary.byFunction)
