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

/** One fresh process: the milliseconds from its start to the first result, as it reports them. */
const once = (script: string, who: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, stdioServer.command, ...stdioServer.args], {
      stdio: ["ignore", "pipe", "inherit"],
      env: childEnv()
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.once("error", reject)
    child.once("exit", (code) => {
      const match = /^(\S+) (.*)$/.exec(out.trim())
      if (code !== 0 || match === null) return reject(new Error(`${who} cold start failed (exit ${code}): ${out}`))
      checkEcho(who, { content: JSON.parse(match[2]!) })
      resolve(Number(match[1]))
    })
  })

/**
 * `runs` cold starts per client, alternating which goes first; the median in
 * milliseconds.
 */
export const coldStart = async (runs: number, log: (line: string) => void): Promise<Scores> => {
  const scripts = await build()
  const samples = { ours: [] as Array<number>, sdk: [] as Array<number> }
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? (["ours", "sdk"] as const) : (["sdk", "ours"] as const)
    for (const who of order) samples[who].push(await once(scripts[who], who))
  }
  for (const who of ["ours", "sdk"] as const) {
    log(`  ${who}: ${samples[who].map((v) => v.toFixed(0)).join(" ")} ms`)
  }
  return { ours: median(samples.ours), sdk: median(samples.sdk) }
}
