// `npm run conformance [-- [--run <id>]... [--jobs <n>] [<scenario>...]]`: runs the official MCP
// conformance client scenarios against conformance/client.ts, in four runs:
//
//   0.1.16      every client scenario of @modelcontextprotocol/conformance 0.1.16 (its `--suite all`)
//   2025-11-25  what 0.2.0-alpha.12 requires for 2025-11-25 (`client --requirements 2025-11-25`)
//   2026-07-28  what 0.2.0-alpha.12 requires for 2026-07-28 (`client --requirements 2026-07-28`)
//   extensions  the rest of the alpha's `--suite all`: extensions, backcompat, not-yet-scored scenarios
//
// Each scenario runs on its own runner process (`client --scenario <name>`; in a requirement run
// with `--spec-version <revision> --force`, which is what `--requirements` does per scenario), two
// at a time by default; `sse-retry` measures reconnection timing, so it runs alone.
//
// The runners need Node >= 22, while the library targets Node 20; so Node 22 and both runners are
// installed from the npm registry into .node22/ (git-ignored) from the pinned lockfile in
// conformance/toolchain/, once. Our client itself runs on the Node that runs this script. Results
// go to conformance-results/<run>/<scenario>/, totals to conformance-results/summary.json.
// A scenario the runner lists but conformance/scenarios.ts lacks is a failure (not run).
// Exits non-zero when any scenario of any run has a failed or a warning check, when the client or
// the runner exits non-zero, or when a scenario is unknown.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const toolchainSource = join(root, "conformance", "toolchain")
const toolchain = join(root, ".node22")
const resultsRoot = join(root, "conformance-results")

const node22 = join(toolchain, "node_modules", "node", "bin", "node")
const runners = {
  stable: join(toolchain, "node_modules", "@modelcontextprotocol", "conformance"),
  alpha: join(toolchain, "node_modules", "conformance-alpha")
}
const cliOf = (runner) => join(runners[runner], "dist", "index.js")

const read = (path) => existsSync(path) ? readFileSync(path, "utf8") : undefined
const versionOf = (packageDir) => JSON.parse(read(join(packageDir, "package.json")) ?? "{}").version

// ---- arguments ------------------------------------------------------------------------

const runIds = ["0.1.16", "2025-11-25", "2026-07-28", "extensions"]
const args = process.argv.slice(2)
const chosenRuns = []
const chosenScenarios = []
let jobs = 2
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--run") chosenRuns.push(args[++i])
  else if (args[i] === "--jobs") jobs = Number(args[++i])
  else chosenScenarios.push(args[i])
}
const unknownRuns = chosenRuns.filter((id) => !runIds.includes(id))
if (unknownRuns.length > 0 || !Number.isInteger(jobs) || jobs < 1) {
  console.error(`usage: npm run conformance -- [--run <${runIds.join("|")}>]... [--jobs <n>] [<scenario>...]`)
  process.exit(2)
}

// ---- install (idempotent) ------------------------------------------------------------

const lock = JSON.parse(readFileSync(join(toolchainSource, "package-lock.json"), "utf8"))
const wanted = {
  node: lock.packages["node_modules/node"].version,
  stable: lock.packages["node_modules/@modelcontextprotocol/conformance"].version,
  alpha: lock.packages["node_modules/conformance-alpha"].version
}
const wantedText = `node@${wanted.node} and @modelcontextprotocol/conformance@${wanted.stable} + @${wanted.alpha}`

const installed = () => {
  if (read(join(toolchain, "package-lock.json")) !== read(join(toolchainSource, "package-lock.json"))) return false
  if (versionOf(runners.stable) !== wanted.stable || versionOf(runners.alpha) !== wanted.alpha) return false
  if (!existsSync(node22)) return false
  const probe = spawnSync(node22, ["--version"], { encoding: "utf8" })
  return probe.status === 0 && probe.stdout.trim() === `v${wanted.node}`
}

const install = () => {
  const started = Date.now()
  console.log(`conformance: installing ${wantedText} into .node22/`)
  mkdirSync(toolchain, { recursive: true })
  for (const file of ["package.json", "package-lock.json"]) {
    writeFileSync(join(toolchain, file), readFileSync(join(toolchainSource, file)))
  }
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: toolchain,
    stdio: "inherit"
  })
  if (npm.status !== 0 || !installed()) {
    console.error("conformance: the install failed (see npm's output above)")
    process.exit(1)
  }
  console.log(`conformance: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

if (installed()) console.log(`conformance: ${wantedText} already installed`)
else install()

// ---- what to run ----------------------------------------------------------------------

const runnerOutput = (runner, commandArgs) => {
  const result = spawnSync(node22, [cliOf(runner), ...commandArgs], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" }
  })
  if (result.status !== 0) {
    console.error(
      `conformance: \`conformance ${commandArgs.join(" ")}\` failed:\n${result.stdout ?? ""}${result.stderr ?? ""}`
    )
    process.exit(1)
  }
  return result.stdout
}

/** The `  - name` lines of `conformance list ...`, in the section under `heading` (the whole output if none). */
const listed = (output, heading) => {
  const lines = output.split("\n")
  const start = heading === undefined ? 0 : lines.findIndex((line) => line.startsWith(heading)) + 1
  const names = []
  for (const line of lines.slice(start)) {
    const name = /^\s+- (\S+)/.exec(line)?.[1]
    if (name !== undefined) names.push(name)
    else if (heading !== undefined && names.length > 0) break
  }
  if (names.length === 0) {
    console.error(`conformance: no scenarios found in the runner's list:\n${output}`)
    process.exit(1)
  }
  return names
}

const clientSection = "Client scenarios (test against a client):"
/** The client scenarios a revision requires (scored), per the alpha's bundled requirement set. */
const required = (revision) => listed(runnerOutput("alpha", ["list", "--requirements", revision]), clientSection)
const alphaAll = listed(runnerOutput("alpha", ["list", "--client"]), clientSection)
const required2025 = required("2025-11-25")
const required2026 = required("2026-07-28")

const runs = [
  {
    id: "0.1.16",
    runner: "stable",
    protocolVersion: "2025-11-25",
    flags: [],
    scenarios: listed(runnerOutput("stable", ["list", "--client"]), clientSection)
  },
  {
    id: "2025-11-25",
    runner: "alpha",
    protocolVersion: "2025-11-25",
    flags: ["--spec-version", "2025-11-25", "--force"],
    scenarios: required2025
  },
  {
    id: "2026-07-28",
    runner: "alpha",
    protocolVersion: "2026-07-28",
    flags: ["--spec-version", "2026-07-28", "--force"],
    scenarios: required2026
  },
  {
    id: "extensions",
    runner: "alpha",
    // the runner's default wire for a scenario outside the 2026 requirement set
    protocolVersion: "2025-11-25",
    flags: [],
    scenarios: alphaAll.filter((name) => !required2025.includes(name) && !required2026.includes(name))
  }
].filter((run) => chosenRuns.length === 0 || chosenRuns.includes(run.id))
  .map((run) => ({
    ...run,
    scenarios: chosenScenarios.length === 0 ? run.scenarios : run.scenarios.filter((s) => chosenScenarios.includes(s))
  }))
  .filter((run) => run.scenarios.length > 0)

const notListed = chosenScenarios.filter((s) => !runs.some((run) => run.scenarios.includes(s)))
if (runs.length === 0 || notListed.length > 0) {
  console.error(`conformance: no chosen run lists ${notListed.join(", ") || "any scenario"}`)
  process.exit(2)
}

// The client, bundled once per run with esbuild (from the workspace's sources, as tsx would
// run them): a runner process starts it per scenario, and a bundle starts in well under a
// second where tsx takes seconds on a busy machine (the runner gives the client 30 s).
const clientBundle = join(root, ".cache", "conformance", "client.mjs")
{
  const started = Date.now()
  const esbuild = await import("esbuild")
  try {
    await esbuild.build({
      entryPoints: [join(root, "conformance", "client.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: ["@mcp-effect/source"],
      outfile: clientBundle,
      // bundled CommonJS dependencies require Node's built-in modules
      banner: {
        js:
          "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);"
      },
      logLevel: "error"
    })
  } catch {
    console.error("conformance: could not bundle conformance/client.ts (see esbuild's output above)")
    process.exit(1)
  }
  console.log(`conformance: bundled conformance/client.ts in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

// The runner splits --command on spaces and appends the server URL; paths are
// relative to the repository root (the runner's working directory).
const clientNode = process.execPath.includes(" ") ? "node" : process.execPath
const clientArgs = [relative(root, clientBundle)]
const clientCommand = [clientNode, ...clientArgs].join(" ")

/** The keys of conformance/scenarios.ts (`name` or `name@protocolVersion`), from `client.ts --list`. */
const tableKeys = (() => {
  const list = spawnSync(clientNode, [...clientArgs, "--list"], { cwd: root, encoding: "utf8" })
  if (list.status !== 0) {
    console.error(`conformance: client.ts --list failed:\n${list.stdout ?? ""}${list.stderr ?? ""}`)
    process.exit(1)
  }
  return new Set(list.stdout.split("\n").filter(Boolean))
})()
const known = (scenario, protocolVersion) => tableKeys.has(`${scenario}@${protocolVersion}`) || tableKeys.has(scenario)

// ---- run ------------------------------------------------------------------------------

/** Runs one scenario of a run; resolves with whether it passed, a summary line and, on failure, the details. */
const runScenario = (run, scenario) =>
  new Promise((resolve) => {
    const label = `[${run.id}] ${scenario}`
    if (!known(scenario, run.protocolVersion)) {
      resolve({
        ok: false,
        summary: `FAIL ${label}: not in conformance/scenarios.ts (the runner lists it; add an entry)`,
        details: []
      })
      return
    }
    const resultDir = join(resultsRoot, run.id, scenario)
    rmSync(resultDir, { recursive: true, force: true })
    mkdirSync(resultDir, { recursive: true })
    const started = Date.now()
    const child = spawn(
      node22,
      [cliOf(run.runner), "client", "--command", clientCommand, "--scenario", scenario, ...run.flags, "-o", resultDir],
      { cwd: root, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] }
    )
    let output = ""
    child.stdout.on("data", (chunk) => output += chunk)
    child.stderr.on("data", (chunk) => output += chunk)
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      writeFileSync(join(resultDir, "runner.log"), output)
      // the runner saves <resultDir>/<scenario>-<timestamp>/checks.json (auth/x nests one level deeper)
      const found = readdirSync(resultDir, { recursive: true }).map(String).filter((p) => p.endsWith("checks.json"))
      const checks = found.length === 1 ? JSON.parse(readFileSync(join(resultDir, found[0]), "utf8")) : []
      const count = (status) => checks.filter((c) => c.status === status).length
      const [passed, failed, warnings] = [count("SUCCESS"), count("FAILURE"), count("WARNING")]

      const problems = []
      if (found.length !== 1) problems.push(`expected one checks.json, found ${found.length}`)
      if (passed === 0) problems.push("no successful check")
      if (code !== 0) problems.push(`runner exited with ${code ?? signal}`)
      const ok = problems.length === 0 && failed === 0 && warnings === 0
      const summary =
        `${ok ? "PASS" : "FAIL"} ${label}: ${passed} passed, ${failed} failed, ${warnings} warnings (${seconds} s)` +
        (problems.length > 0 ? ` [${problems.join("; ")}]` : "")
      const details = ok ? [] : [
        ...checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")
          .map((c) => `  ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
        `  runner output: ${relative(root, join(resultDir, "runner.log"))}`
      ]
      resolve({ ok, summary, details })
    })
  })

/** Scenarios that measure timing: never beside another one. */
const alone = new Set(["sse-retry"])

/** Runs the tasks `jobs` at a time (a task in `alone` with nothing beside it), in order of start. */
const pool = async (tasks) => {
  const running = new Set()
  const start = (task) => {
    const promise = task.start().then(() => running.delete(promise))
    running.add(promise)
  }
  for (const task of tasks) {
    if (task.alone) {
      await Promise.all(running)
      await task.start()
      continue
    }
    while (running.size >= jobs) await Promise.race(running)
    start(task)
  }
  await Promise.all(running)
}

const suiteStarted = Date.now()
const outcomes = Object.fromEntries(runs.map((run) => [run.id, {}]))
await pool(runs.flatMap((run) =>
  run.scenarios.map((scenario) => ({
    alone: alone.has(scenario),
    start: () =>
      runScenario(run, scenario).then(({ details, ok, summary }) => {
        console.log(summary)
        for (const line of details) console.error(line)
        outcomes[run.id][scenario] = ok ? "pass" : "fail"
      })
  }))
))

const tally = (record) => {
  const values = Object.values(record)
  return { passed: values.filter((v) => v === "pass").length, failed: values.filter((v) => v === "fail").length }
}
const summary = {
  ...tally(
    Object.fromEntries(runs.flatMap((run) => Object.entries(outcomes[run.id]).map(([s, v]) => [`${run.id} ${s}`, v])))
  ),
  runs: Object.fromEntries(runs.map((run) => [run.id, { ...tally(outcomes[run.id]), scenarios: outcomes[run.id] }]))
}
mkdirSync(resultsRoot, { recursive: true })
writeFileSync(join(resultsRoot, "summary.json"), JSON.stringify(summary, null, 2) + "\n")

for (const run of runs) {
  const { failed, passed } = summary.runs[run.id]
  const failedNames = run.scenarios.filter((s) => outcomes[run.id][s] !== "pass")
  console.log(
    failed === 0 ?
      `conformance [${run.id}]: all ${passed} scenarios passed` :
      `conformance [${run.id}]: FAILED ${failed} of ${passed + failed} scenarios: ${failedNames.join(", ")}`
  )
}
const total = `${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`
console.log(
  summary.failed === 0 ?
    `conformance: all ${summary.passed} scenario runs passed (${total})` :
    `conformance: FAILED ${summary.failed} of ${summary.passed + summary.failed} scenario runs (${total})`
)
process.exit(summary.failed === 0 ? 0 : 1)
