/**
 * Cold start: a fresh Node process to the first tool result over stdio
 * (import, spawn the fixture, initialize, call `echo`), ours vs the SDK.
 *
 * Both entries (`entries/cold-*.ts`) are compiled to plain ESM with esbuild
 * first, so neither pays for `tsx`: our workspace packages are bundled from
 * their sources (as their `dist` would be), while `effect`, `@effect/*` and
 * the SDK stay imports from `node_modules`, loaded the way an app loads them.
 *
 * Beside each client it times its **import floor**: a fresh process that
 * imports exactly the packages the client's compiled entry imports (the
 * `effect`, `@effect/*` and SDK modules, and the Node built-ins) and exits at
 * once. No client can start faster than its floor; the rest of its time is
 * its own code (module evaluation, spawn, handshake, call).
 */
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { median, type Scores } from "./measure.js"
import { childEnv, stdioServer } from "./servers.js"
import { checkEcho } from "./subject.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The output sits under the repository, so bare imports resolve in its `node_modules`. */
const outdir = here("../.cache/bench-cold")

type Who = "ours" | "sdk"

/** Prints what the entries print, without a result. */
const report = "const cpu = process.cpuUsage()\n" +
  "process.stdout.write(`${performance.now()} ${(cpu.user + cpu.system) / 1000} []\\n`)\n"

const build = async (): Promise<{ readonly client: Record<Who, string>; readonly floor: Record<Who, string> }> => {
  const result = await esbuild.build({
    entryPoints: { ours: here("./entries/cold-ours.ts"), sdk: here("./entries/cold-sdk.ts") },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["@mcp-effect/source"],
    external: ["effect", "effect/*", "@effect/*", "@modelcontextprotocol/*"],
    metafile: true,
    logLevel: "silent"
  })
  const floor = {} as Record<Who, string>
  for (const who of ["ours", "sdk"] as const) {
    const output = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith(`/${who}.mjs`))![1]
    const imports = [...new Set(output.imports.filter((i) => i.external).map((i) => i.path))].sort()
    floor[who] = `${outdir}/floor-${who}.mjs`
    writeFileSync(floor[who], imports.map((path) => `import ${JSON.stringify(path)}\n`).join("") + report)
  }
  return { client: { ours: `${outdir}/ours.mjs`, sdk: `${outdir}/sdk.mjs` }, floor }
}

interface Sample {
  /** Milliseconds from the process start to the first result. */
  readonly wall: number
  /** CPU milliseconds the process used until then (steadier than wall time on a loaded machine). */
  readonly cpu: number
}

/** One fresh process, as it reports itself; `check` is false for a floor, which calls nothing. */
const once = (script: string, who: string, check = true): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, stdioServer.command, ...stdioServer.args], {
      stdio: ["ignore", "pipe", "inherit"],
      env: childEnv()
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.once("error", reject)
    child.once("exit", (code) => {
      const match = /^(\S+) (\S+) (.*)$/.exec(out.trim())
      if (code !== 0 || match === null) return reject(new Error(`${who} cold start failed (exit ${code}): ${out}`))
      if (check) checkEcho(who, { content: JSON.parse(match[3]!) })
      resolve({ wall: Number(match[1]), cpu: Number(match[2]) })
    })
  })

export interface ColdScores {
  readonly wall: Scores
  readonly cpu: Scores
  /** The import floors (see the module comment), measured the same way. */
  readonly floor: { readonly wall: Scores; readonly cpu: Scores }
}

/**
 * `runs` cold starts per client and per floor, alternating which client goes
 * first; the medians of wall and CPU milliseconds.
 */
export const coldStart = async (runs: number, log: (line: string) => void): Promise<ColdScores> => {
  const scripts = await build()
  const samples = { ours: [] as Array<Sample>, sdk: [] as Array<Sample> }
  const floors = { ours: [] as Array<Sample>, sdk: [] as Array<Sample> }
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? (["ours", "sdk"] as const) : (["sdk", "ours"] as const)
    for (const who of order) {
      samples[who].push(await once(scripts.client[who], who))
      floors[who].push(await once(scripts.floor[who], `${who} floor`, false))
    }
  }
  const show = (s: Sample) => `${s.wall.toFixed(0)} (cpu ${s.cpu.toFixed(0)})`
  for (const who of ["ours", "sdk"] as const) {
    log(`  ${who}: ${samples[who].map(show).join(" ")} ms; import floor: ${floors[who].map(show).join(" ")} ms`)
  }
  const medianOf = (of: Record<Who, Array<Sample>>, pick: (sample: Sample) => number): Scores => ({
    ours: median(of.ours.map(pick)),
    sdk: median(of.sdk.map(pick))
  })
  return {
    wall: medianOf(samples, (s) => s.wall),
    cpu: medianOf(samples, (s) => s.cpu),
    floor: { wall: medianOf(floors, (s) => s.wall), cpu: medianOf(floors, (s) => s.cpu) }
  }
}
