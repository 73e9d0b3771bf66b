/**
 * Cold start: a fresh Node process to the first tool result over stdio
 * (import, spawn the fixture, initialize, call `echo`), ours vs the SDK.
 *
 * Both entries (`entries/cold-*.ts`) are compiled to plain ESM with esbuild
 * first, so neither pays for `tsx`: our workspace packages are bundled from
 * their sources (as their `dist` would be), while `effect`, `@effect/*` and
 * the SDK stay imports from `node_modules`, loaded the way an app loads them.
 */
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { median, type Scores } from "./measure.js"
import { childEnv, stdioServer } from "./servers.js"
import { checkEcho } from "./subject.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The output sits under the repository, so bare imports resolve in its `node_modules`. */
const outdir = here("../.cache/bench-cold")

const build = async (): Promise<Record<"ours" | "sdk", string>> => {
  await esbuild.build({
    entryPoints: { ours: here("./entries/cold-ours.ts"), sdk: here("./entries/cold-sdk.ts") },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["@mcp-effect/source"],
    external: ["effect", "effect/*", "@effect/*", "@modelcontextprotocol/*"],
    logLevel: "silent"
  })
  return { ours: `${outdir}/ours.mjs`, sdk: `${outdir}/sdk.mjs` }
}

interface Sample {
  /** Milliseconds from the process start to the first result. */
  readonly wall: number
  /** CPU milliseconds the process used until then (steadier than wall time on a loaded machine). */
  readonly cpu: number
}

/** One fresh process, as it reports itself. */
const once = (script: string, who: string): Promise<Sample> =>
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
      checkEcho(who, { content: JSON.parse(match[3]!) })
      resolve({ wall: Number(match[1]), cpu: Number(match[2]) })
    })
  })

/**
 * `runs` cold starts per client, alternating which goes first; the medians
 * of wall and CPU milliseconds.
 */
export const coldStart = async (
  runs: number,
  log: (line: string) => void
): Promise<{ readonly wall: Scores; readonly cpu: Scores }> => {
  const scripts = await build()
  const samples = { ours: [] as Array<Sample>, sdk: [] as Array<Sample> }
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? (["ours", "sdk"] as const) : (["sdk", "ours"] as const)
    for (const who of order) samples[who].push(await once(scripts[who], who))
  }
  for (const who of ["ours", "sdk"] as const) {
    log(`  ${who}: ${samples[who].map((s) => `${s.wall.toFixed(0)} (cpu ${s.cpu.toFixed(0)})`).join(" ")} ms`)
  }
  const medianOf = (pick: (sample: Sample) => number): Scores => ({
    ours: median(samples.ours.map(pick)),
    sdk: median(samples.sdk.map(pick))
  })
  return { wall: medianOf((s) => s.wall), cpu: medianOf((s) => s.cpu) }
}
