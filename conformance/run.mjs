// `npm run conformance [-- <scenario>...]`: runs the official MCP conformance
// client scenarios against conformance/client.ts — by default the whole client
// suite (what `conformance client --suite all` runs), one scenario at a time.
//
// The runner (@modelcontextprotocol/conformance) needs Node >= 22, while the
// library targets Node 20; so Node 22 and the runner are installed from the
// npm registry into .node22/ (git-ignored) from the pinned lockfile in
// conformance/toolchain/, once. Our client itself runs on the Node that runs
// this script. Results go to conformance-results/client/<scenario>/.
// Exits non-zero when any scenario has a failed or a warning check, or when
// the client or the runner exits non-zero.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const toolchainSource = join(root, "conformance", "toolchain")
const toolchain = join(root, ".node22")
const resultsRoot = join(root, "conformance-results", "client")

const node22 = join(toolchain, "node_modules", "node", "bin", "node")
const runnerPackage = join(toolchain, "node_modules", "@modelcontextprotocol", "conformance")

const read = (path) => existsSync(path) ? readFileSync(path, "utf8") : undefined
const versionOf = (packageDir) => JSON.parse(read(join(packageDir, "package.json")) ?? "{}").version

// ---- install (idempotent) ------------------------------------------------------------

const lock = JSON.parse(readFileSync(join(toolchainSource, "package-lock.json"), "utf8"))
const wanted = {
  node: lock.packages["node_modules/node"].version,
  runner: lock.packages["node_modules/@modelcontextprotocol/conformance"].version
}

const installed = () => {
  if (read(join(toolchain, "package-lock.json")) !== read(join(toolchainSource, "package-lock.json"))) return false
  if (versionOf(runnerPackage) !== wanted.runner || !existsSync(node22)) return false
  const probe = spawnSync(node22, ["--version"], { encoding: "utf8" })
  return probe.status === 0 && probe.stdout.trim() === `v${wanted.node}`
}

const install = () => {
  const started = Date.now()
  console.log(`conformance: installing node@${wanted.node} and @modelcontextprotocol/conformance@${wanted.runner} into .node22/`)
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

if (installed()) {
  console.log(`conformance: node@${wanted.node} and @modelcontextprotocol/conformance@${wanted.runner} already installed`)
} else {
  install()
}

// ---- run ------------------------------------------------------------------------------

/** Every client scenario of the installed runner (`conformance list --client`): the `--suite all` set. */
const allScenarios = () => {
  const list = spawnSync(node22, [join(runnerPackage, "dist", "index.js"), "list", "--client"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" }
  })
  const names = (list.stdout ?? "").split("\n").map((line) => /^\s+- (\S+)/.exec(line)?.[1]).filter(Boolean)
  if (list.status !== 0 || names.length === 0) {
    console.error(`conformance: could not list the client scenarios:\n${list.stdout ?? ""}${list.stderr ?? ""}`)
    process.exit(1)
  }
  return names
}

// The runner splits --command on spaces and appends the server URL; paths are
// relative to the repository root (the runner's working directory).
const tsxCli = relative(root, join(root, "node_modules", "tsx", "dist", "cli.mjs"))
const clientNode = process.execPath.includes(" ") ? "node" : process.execPath
const clientCommand = `${clientNode} ${tsxCli} --conditions=@mcp-effect/source conformance/client.ts`

/** Runs one scenario; returns whether it passed, a summary line and, on failure, what went wrong. */
const runScenario = (scenario) => {
  const resultDir = join(resultsRoot, scenario)
  rmSync(resultDir, { recursive: true, force: true })
  mkdirSync(resultDir, { recursive: true })
  const started = Date.now()
  const run = spawnSync(
    node22,
    [join(runnerPackage, "dist", "index.js"), "client", "--command", clientCommand, "--scenario", scenario, "-o", resultDir],
    { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024 }
  )
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`
  writeFileSync(join(resultDir, "runner.log"), output)

  // the runner saves <resultDir>/<scenario>-<timestamp>/checks.json (auth/x nests one level deeper)
  const found = readdirSync(resultDir, { recursive: true }).map(String).filter((p) => p.endsWith("checks.json"))
  const checks = found.length === 1 ? JSON.parse(readFileSync(join(resultDir, found[0]), "utf8")) : []
  const count = (status) => checks.filter((c) => c.status === status).length
  const [passed, failed, warnings] = [count("SUCCESS"), count("FAILURE"), count("WARNING")]

  const problems = []
  if (found.length !== 1) problems.push(`expected one checks.json, found ${found.length}`)
  if (passed === 0) problems.push("no successful check")
  if (run.status !== 0) problems.push(`runner exited with ${run.status ?? run.signal}`)
  const ok = problems.length === 0 && failed === 0 && warnings === 0
  const summary = `${ok ? "PASS" : "FAIL"} ${scenario}: ${passed} passed, ${failed} failed, ${warnings} warnings (${seconds} s)` +
    (problems.length > 0 ? ` [${problems.join("; ")}]` : "")
  const details = ok ? [] : [
    ...checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")
      .map((c) => `  ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
    `  runner output: ${relative(root, join(resultDir, "runner.log"))}`
  ]
  return { ok, summary, details }
}

// one after the other: sse-retry measures reconnection timing
const scenarios = process.argv.length > 2 ? process.argv.slice(2) : allScenarios()
const suiteStarted = Date.now()
const failedScenarios = []
for (const scenario of scenarios) {
  const { ok, summary, details } = runScenario(scenario)
  console.log(summary)
  for (const line of details) console.error(line)
  if (!ok) failedScenarios.push(scenario)
}
const total = `${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`
writeFileSync(
  join(root, "conformance-results", "summary.json"),
  JSON.stringify({ passed: scenarios.length - failedScenarios.length, failed: failedScenarios.length }) + "\n"
)
console.log(
  failedScenarios.length === 0 ?
    `conformance: all ${scenarios.length} scenarios passed (${total})` :
    `conformance: FAILED ${failedScenarios.length} of ${scenarios.length} scenarios (${total}): ${failedScenarios.join(", ")}`
)
process.exit(failedScenarios.length === 0 ? 0 : 1)
