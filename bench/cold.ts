/**
 * Cold start: a fresh Node process to the first tool result over stdio
 * (import, spawn the fixture, initialize, call `echo`), ours vs the SDK.
 *
 * Both entries (`entries/cold-*.ts`) are compiled to plain ESM with esbuild
 * first, so neither pays for `tsx`: our workspace packages are bundled from
 * their sources into the entry (tree-shaken, with code splitting as an app's
 * bundler does: what a library loads with `import()`, such as our JSON Schema
 * validator, is a chunk read on first use), while `effect`, `@effect/*` and
 * the SDK stay imports from `node_modules`, loaded the way an app loads them.
 *
 * Bundling our packages is kinder to us than an app's `node_modules`: a
 * bundle holds only what the entry uses, in one file. So ours also runs
 * **as published** (`ours-dist`): the entry imports `@mcp-effect/*` from a
 * `node_modules` holding each package as `npm run build` writes it: `dist/`
 * file by file (as `tsc` writes it, for bundlers) and `dist/node/`, one bundle
 * of the whole package (`scripts/bundle-node.mjs`), which Node loads through
 * the `node` export condition: every module the package index reaches is
 * evaluated, as in an app.
 *
 * A command-line tool is often shipped as one bundled file. So both clients
 * also run **bundled whole** (`ours-whole`, `sdk-whole`): each entry with
 * every package it imports in one minified file (esbuild `--bundle --minify`,
 * nothing external but Node's built-ins), the way a CLI author ships it.
 * Bundling drops what the entry never uses; for us that is mostly
 * `effect/FastCheck`, which `effect/Schema` imports at its top, so Node
 * loads all of fast-check for any program that imports `effect/Schema`.
 *
 * Beside each client it times its **import floor**: a fresh process that
 * imports exactly the packages the client's compiled entry imports (the
 * `effect`, `@effect/*` and SDK modules, and the Node built-ins) and exits at
 * once. No client can start faster than its floor; the rest of its time is
 * its own code (module evaluation, spawn, handshake, call).
 */
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { bundleNode } from "../scripts/bundle-node.mjs"
import { median, type Scores } from "./measure.js"
import { childEnv, stdioServer } from "./servers.js"
import { checkEcho } from "./subject.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The output sits under the repository, so bare imports resolve in its `node_modules`. */
const outdir = here("../.cache/bench-cold")

type Who = "ours" | "sdk"
type Client = Who | "ours-dist" | "ours-whole" | "sdk-whole"

const external = ["effect", "effect/*", "@effect/*", "@modelcontextprotocol/*"]

/** Where the published layout goes: the entry beside a `node_modules` with our packages. */
const publishedDir = `${outdir}/published`

/**
 * Our workspace packages as published: every source file compiled on its own
 * into `dist/` (what `tsc -b` writes: the `default` export condition, for
 * bundlers), `dist/node/` as `npm run build` writes it (one bundle per
 * package: the `node` condition, what Node loads), and the package's
 * `package.json`.
 */
const publish = async (names: ReadonlyArray<string>) => {
  rmSync(`${publishedDir}/node_modules`, { recursive: true, force: true })
  for (const name of names) {
    const root = here(`../packages/${name}`)
    const target = `${publishedDir}/node_modules/@mcp-effect/${name}`
    const sources = readdirSync(`${root}/src`, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
      .map((file) => `${root}/src/${file}`)
    await esbuild.build({
      entryPoints: sources,
      outbase: `${root}/src`,
      outdir: `${target}/dist`,
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "silent"
    })
    await bundleNode(root, `${target}/dist/node`)
    mkdirSync(target, { recursive: true })
    copyFileSync(`${root}/package.json`, `${target}/package.json`)
  }
}

/** Prints what the entries print, without a result. */
const report = "const cpu = process.cpuUsage()\n" +
  "process.stdout.write(`${performance.now()} ${(cpu.user + cpu.system) / 1000} []\\n`)\n"

/**
 * The packages an entry's output loads before it runs: its external imports and those of the chunks
 * it imports statically (not those of chunks it loads with `import()`).
 */
const staticImports = (metafile: esbuild.Metafile, entry: string): Set<string> => {
  const outputs = Object.entries(metafile.outputs)
  const found = new Set<string>()
  const visit = (path: string, seen: Set<string>) => {
    if (seen.has(path)) return
    seen.add(path)
    for (const i of metafile.outputs[path]!.imports) {
      if (i.external) found.add(i.path)
      else if (i.kind === "import-statement") visit(i.path, seen)
    }
  }
  visit(outputs.find(([path]) => path.endsWith(entry))![0], new Set())
  return found
}

const build = async (): Promise<{
  readonly client: Record<Client, string>
  readonly floor: Record<Who, string>
  readonly effectFloor: string
}> => {
  const common = {
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent"
  } as const
  const result = await esbuild.build({
    ...common,
    entryPoints: { ours: here("./entries/cold-ours.ts"), sdk: here("./entries/cold-sdk.ts") },
    outdir,
    conditions: ["@mcp-effect/source"],
    external,
    // as an app's bundler does (Rollup and Vite always split): what a library loads with `import()`
    // becomes a chunk of its own, loaded on first use instead of parsed with the entry
    splitting: true,
    chunkNames: "chunk-[hash]",
    metafile: true
  })
  const published = await esbuild.build({
    ...common,
    entryPoints: { ours: here("./entries/cold-ours.ts") },
    outdir: publishedDir,
    external: [...external, "@mcp-effect/*"],
    metafile: true
  })
  await esbuild.build({
    ...common,
    entryPoints: {
      "ours-whole": here("./entries/cold-ours.ts"),
      "sdk-whole": here("./entries/cold-sdk.ts")
    },
    outdir,
    conditions: ["@mcp-effect/source"],
    minify: true,
    // CommonJS dependencies (the SDK's `cross-spawn`) call `require` for Node's built-ins.
    banner: { js: "import { createRequire } from \"node:module\"; const require = createRequire(process.argv[1]);" }
  })
  const packages = Object.values(published.metafile.outputs).flatMap((output) =>
    output.imports.flatMap((i) => /^@mcp-effect\/([^/]+)/.exec(i.path)?.[1] ?? [])
  )
  await publish([...new Set([...packages, "core"])])
  const floor = {} as Record<Who, string>
  for (const who of ["ours", "sdk"] as const) {
    const imports = [...staticImports(result.metafile, `/${who}.mjs`)].sort()
    floor[who] = `${outdir}/floor-${who}.mjs`
    writeFileSync(floor[who], imports.map((path) => `import ${JSON.stringify(path)}\n`).join("") + report)
  }
  // the least a client on Effect imports: its core and Schema (which loads fast-check at its top)
  const effectFloor = `${outdir}/floor-effect.mjs`
  writeFileSync(effectFloor, "import \"effect/Effect\"\nimport \"effect/Schema\"\n" + report)
  return {
    client: {
      ours: `${outdir}/ours.mjs`,
      "ours-dist": `${publishedDir}/ours.mjs`,
      sdk: `${outdir}/sdk.mjs`,
      "ours-whole": `${outdir}/ours-whole.mjs`,
      "sdk-whole": `${outdir}/sdk-whole.mjs`
    },
    floor,
    effectFloor
  }
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
  /** Ours bundled from source (`ours-dist`: as published), the SDK, and both bundled whole. */
  readonly wall: Readonly<Record<Client, number>>
  readonly cpu: Readonly<Record<Client, number>>
  /** The import floors (see the module comment), measured the same way. */
  readonly floor: { readonly wall: Scores; readonly cpu: Scores }
  /** A process that imports only `effect/Effect` and `effect/Schema`: no client on Effect starts below it. */
  readonly effectFloor: Sample
}

/**
 * `runs` cold starts per client (ours bundled, ours as published, the SDK, both bundled whole)
 * and per floor, in a different order each round; the medians of wall and
 * CPU milliseconds.
 */
export const coldStart = async (runs: number, log: (line: string) => void): Promise<ColdScores> => {
  const scripts = await build()
  const clients = ["ours", "ours-dist", "sdk", "ours-whole", "sdk-whole"] as const
  const samples = Object.fromEntries(clients.map((who) => [who, []])) as unknown as Record<Client, Array<Sample>>
  const floors: Record<Who, Array<Sample>> = { ours: [], sdk: [] }
  const effectFloors: Array<Sample> = []
  for (let round = 0; round < runs; round++) {
    effectFloors.push(await once(scripts.effectFloor, "effect floor", false))
    for (let i = 0; i < clients.length; i++) {
      const who = clients[(i + round) % clients.length]!
      samples[who].push(await once(scripts.client[who], who))
      if (who === "ours" || who === "sdk") floors[who].push(await once(scripts.floor[who], `${who} floor`, false))
    }
  }
  const show = (s: Sample) => `${s.wall.toFixed(0)} (cpu ${s.cpu.toFixed(0)})`
  for (const who of clients) log(`  ${who}: ${samples[who].map(show).join(" ")} ms`)
  for (const who of ["ours", "sdk"] as const) log(`  ${who} import floor: ${floors[who].map(show).join(" ")} ms`)
  log(`  effect/Effect + effect/Schema alone: ${effectFloors.map(show).join(" ")} ms`)
  const of = (pick: (sample: Sample) => number) =>
    Object.fromEntries(clients.map((who) => [who, median(samples[who].map(pick))])) as Record<Client, number>
  const floorOf = (pick: (sample: Sample) => number): Scores => ({
    ours: median(floors.ours.map(pick)),
    sdk: median(floors.sdk.map(pick))
  })
  return {
    wall: of((s) => s.wall),
    cpu: of((s) => s.cpu),
    floor: { wall: floorOf((s) => s.wall), cpu: floorOf((s) => s.cpu) },
    effectFloor: { wall: median(effectFloors.map((s) => s.wall)), cpu: median(effectFloors.map((s) => s.cpu)) }
  }
}
