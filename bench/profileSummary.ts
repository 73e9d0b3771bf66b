/**
 * Summarises a V8 profile written by `node --cpu-prof` (`.cpuprofile`: self
 * time) or `node --heap-prof` (`.heapprofile`: bytes still allocated) as
 * shares, by module and by function. Idle time is left out of the shares.
 *
 * ```
 * npx tsx bench/profileSummary.ts <file> [--top 25]
 * ```
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"

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

const { positionals, values: flags } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" } }
})
const file = positionals[0]
if (file === undefined) throw new Error("usage: profileSummary.ts <file.cpuprofile|file.heapprofile> [--top N]")
const top = Number(flags.top)

/** `effect/<Module>` for effect's files, the package-relative path for ours, `node:<x>` for Node's. */
const moduleOf = ({ url, functionName }: CallFrame): string => {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)"
  const effect = /node_modules\/(effect|@effect\/[^/]+)\/dist\/(?:esm|cjs)\/(.*)\.js$/.exec(url)
  if (effect !== null) return `${effect[1]}/${effect[2]}`
  const ours = /\/packages\/([^/]+)\/src\/(.*)$/.exec(url)
  if (ours !== null) return `@mcp-effect/${ours[1]}/${ours[2]}`
  const other = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (other !== null) return other[1]!
  return url.replace(/^file:\/\/.*\/(bench|examples)\//, "$1/")
}

const frameName = (frame: CallFrame) => `${frame.functionName || "(anonymous)"} ${moduleOf(frame)}:${frame.lineNumber + 1}`

const idle = new Set(["(idle)", "(program)"])

const add = (totals: Map<string, number>, key: string, value: number) => totals.set(key, (totals.get(key) ?? 0) + value)

const print = (title: string, totals: Map<string, number>, unit: (n: number) => string) => {
  const sum = [...totals.values()].reduce((a, b) => a + b, 0)
  console.log(`\n${title} (total ${unit(sum)})`)
  for (const [key, value] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((value / sum) * 100).toFixed(1).padStart(5)} %  ${unit(value).padStart(10)}  ${key}`)
  }
}

const profile = JSON.parse(readFileSync(file, "utf8"))
const byModule = new Map<string, number>()
const byFunction = new Map<string, number>()

if (file.endsWith(".cpuprofile")) {
  const { nodes, samples, timeDeltas } = profile as CpuProfile
  const frames = new Map(nodes.map((node) => [node.id, node.callFrame]))
  let idleMicros = 0
  samples.forEach((id, i) => {
    const frame = frames.get(id)!
    const micros = timeDeltas[i] ?? 0
    if (idle.has(frame.functionName)) return void (idleMicros += micros)
    add(byModule, moduleOf(frame), micros)
    add(byFunction, frameName(frame), micros)
  })
  const ms = (micros: number) => `${(micros / 1000).toFixed(0)} ms`
  console.log(`${file}: self time, idle and (program) left out (${ms(idleMicros)})`)
  print("by module", byModule, ms)
  print("by function", byFunction, ms)
} else {
  const walk = (node: HeapNode) => {
    if (node.selfSize > 0) {
      add(byModule, moduleOf(node.callFrame), node.selfSize)
      add(byFunction, frameName(node.callFrame), node.selfSize)
    }
    node.children.forEach(walk)
  }
  walk((profile as { head: HeapNode }).head)
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`
  console.log(`${file}: sampled live allocations by allocation site (self)`)
  print("by module", byModule, kib)
  print("by function", byFunction, kib)
}
