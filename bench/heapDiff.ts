/**
 * What a heap snapshot holds that an earlier one (of the same process) did
 * not, per session or per call: `bench/profile.ts idle|closed|inflight
 * --snapshot-out PREFIX` writes the snapshots.
 *
 * ```
 * node bench/start.mjs bench/profile.ts idle --sessions 40 --snapshot-out .cache/prof/idle
 * npx tsx bench/heapDiff.ts .cache/prof/idle-half.heapsnapshot .cache/prof/idle-after.heapsnapshot 20 \
 *   [--bundle .cache/bench/profile.mjs]
 * ```
 *
 * Objects are new when their snapshot id is (ids are stable within a
 * process). It prints them grouped by constructor (bytes and count per unit),
 * then, with `--bundle` (the compiled script that ran: its `// path` comments
 * name each module), grouped by the nearest retaining closure of our own
 * packages, by file and line: what our code keeps alive. That grouping is a
 * heuristic (the first such closure a breadth-first walk over the retainers
 * meets; closures that share a scope share its objects, so a module-level
 * closure can be named for what a session holds): read it as a pointer, and
 * confirm with the constructor counts. Compiled code, hidden and native (C++)
 * nodes are left out: native nodes get new ids in every snapshot.
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"

const { positionals, values: flags } = parseArgs({
  allowPositionals: true,
  options: { bundle: { type: "string" }, top: { type: "string", default: "40" } }
})
const [beforeFile, afterFile, unitsArg] = positionals
if (beforeFile === undefined || afterFile === undefined) {
  throw new Error("usage: heapDiff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [UNITS] [--bundle FILE] [--top N]")
}
const units = Number(unitsArg ?? "1")
const top = Number(flags.top)

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: ReadonlyArray<string>
      readonly edge_fields: ReadonlyArray<string>
      readonly node_types: readonly [ReadonlyArray<string>]
      readonly edge_types: readonly [ReadonlyArray<string>]
    }
  }
  readonly nodes: ReadonlyArray<number>
  readonly edges: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
  readonly locations: ReadonlyArray<number>
}

const load = (file: string): Snapshot => JSON.parse(readFileSync(file, "utf8"))
const before = load(beforeFile)
const after = load(afterFile)
const meta = after.snapshot.meta
const nodeFields = meta.node_fields.length
const edgeFields = meta.edge_fields.length
const [nodeTypes] = meta.node_types
const [edgeTypes] = meta.edge_types
const count = after.nodes.length / nodeFields

const oldIds = new Set<number>()
for (let i = 0; i < before.nodes.length; i += nodeFields) oldIds.add(before.nodes[i + 2]!)

const type = (node: number) => nodeTypes[after.nodes[node * nodeFields]!]!
const name = (node: number) => after.strings[after.nodes[node * nodeFields + 1]!]!
const size = (node: number) => after.nodes[node * nodeFields + 3]!
const isNew = (node: number) => !oldIds.has(after.nodes[node * nodeFields + 2]!)
const skipped = new Set(["code", "hidden", "native", "synthetic", "object shape"])

const kib = (bytes: number) => (bytes / 1024 / units).toFixed(2).padStart(7)
const times = (n: number) => `${(n / units).toFixed(1).padStart(7)}x`
const print = (title: string, groups: Map<string, { n: number; bytes: number }>) => {
  let total = 0
  for (const group of groups.values()) total += group.bytes
  console.log(`${title}: ${kib(total).trim()} KiB per unit`)
  for (const [key, group] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
    console.log(`${kib(group.bytes)} KiB ${times(group.n)}  ${key}`)
  }
}
const add = (groups: Map<string, { n: number; bytes: number }>, key: string, bytes: number) => {
  const group = groups.get(key) ?? { n: 0, bytes: 0 }
  group.n++
  group.bytes += bytes
  groups.set(key, group)
}

const byConstructor = new Map<string, { n: number; bytes: number }>()
for (let node = 0; node < count; node++) {
  if (!isNew(node) || skipped.has(type(node))) continue
  const t = type(node)
  add(byConstructor, t === "object" || t === "closure" ? `${t} ${name(node)}` : t, size(node))
}
print("new objects by constructor", byConstructor)

// what the lines above leave out, by node type: compiled code and V8's hidden objects (a leak of ours is not
// here; code the JIT compiled since the earlier snapshot is); native nodes get new ids in every snapshot, so
// their figure counts all of them, not what is new
const leftOut = new Map<string, { n: number; bytes: number }>()
for (let node = 0; node < count; node++) {
  if (isNew(node) && skipped.has(type(node))) add(leftOut, type(node), size(node))
}
print("left out above (code, hidden, native: see the comment)", leftOut)

if (flags.bundle !== undefined) {
  const source = readFileSync(flags.bundle, "utf8").split("\n")
  // esbuild marks where each module starts with a `// path` comment
  const moduleOf: Array<string> = []
  let current = "?"
  source.forEach((line, i) => {
    const match = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(line)
    if (match) current = match[1]!
    moduleOf[i + 1] = current
  })
  // a location is a script id and a line: the bundle is one script among many (`effect` and the SDK load as
  // modules of their own), so only the lines of the script whose closures' names stand on those lines count
  const votes = new Map<number, number>()
  for (let i = 0; i < after.locations.length; i += 4) {
    const node = after.locations[i]! / nodeFields
    const line = source[after.locations[i + 2]!]
    if (type(node) === "closure" && name(node).length > 3 && line?.includes(name(node))) {
      votes.set(after.locations[i + 1]!, (votes.get(after.locations[i + 1]!) ?? 0) + 1)
    }
  }
  const script = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0]
  const lineOf = new Map<number, number>()
  for (let i = 0; i < after.locations.length; i += 4) {
    if (after.locations[i + 1] === script) lineOf.set(after.locations[i]! / nodeFields, after.locations[i + 2]! + 1)
  }
  const retainers: Array<Array<number>> = Array.from({ length: count }, () => [])
  for (let node = 0, edge = 0; node < count; node++) {
    const edges = after.nodes[node * nodeFields + 4]!
    for (let k = 0; k < edges; k++, edge += edgeFields) {
      const kind = edgeTypes[after.edges[edge]!]
      if (kind !== "weak" && kind !== "shortcut") retainers[after.edges[edge + 2]! / nodeFields]!.push(node)
    }
  }
  const ours = (line: number | undefined) => line !== undefined && moduleOf[line]?.startsWith("packages/") === true
  /** The nearest retaining closure of our packages (breadth first, a few steps), or the fiber that holds it. */
  const owner = (node: number): string => {
    const seen = new Set([node])
    let frontier = [node]
    for (let depth = 0; depth < 8 && frontier.length > 0; depth++) {
      const next: Array<number> = []
      for (const at of frontier) {
        for (const by of retainers[at]!) {
          if (seen.has(by)) continue
          seen.add(by)
          const line = lineOf.get(by)
          if (type(by) === "closure" && ours(line)) {
            return `${moduleOf[line!]}:${line} ${source[line! - 1]!.trim().slice(0, 80)}`
          }
          if (type(by) === "object" && name(by) === "FiberRuntime") return "(a fiber: its stack and state)"
          next.push(by)
        }
      }
      frontier = next
    }
    return "(not found within 8 steps)"
  }
  const byOwner = new Map<string, { n: number; bytes: number }>()
  for (let node = 0; node < count; node++) {
    if (isNew(node) && !skipped.has(type(node))) add(byOwner, owner(node), size(node))
  }
  print("\nnew objects by the closure of ours that holds them", byOwner)

  // where each new closure was written: a function that a session instantiates (any module; effect's and
  // Node's own are named by their script id), what a class's methods or a module-level function would save
  const byDefinition = new Map<string, { n: number; bytes: number }>()
  const scriptLine = new Map<number, string>()
  for (let i = 0; i < after.locations.length; i += 4) {
    const node = after.locations[i]! / nodeFields
    const line = after.locations[i + 2]! + 1
    scriptLine.set(
      node,
      after.locations[i + 1] === script ?
        `${moduleOf[line]}:${line} ${source[line - 1]!.trim().slice(0, 70)}` :
        `script ${after.locations[i + 1]}:${line}`
    )
  }
  for (let node = 0; node < count; node++) {
    if (isNew(node) && type(node) === "closure") add(byDefinition, scriptLine.get(node) ?? name(node), size(node))
  }
  print("\nnew closures by where they are written", byDefinition)
}
