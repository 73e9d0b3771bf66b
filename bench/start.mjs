/**
 * Runs a bench script as compiled JavaScript, the way an app runs a published
 * package:
 *
 * ```
 * node bench/start.mjs bench/run.ts [flags]       # npm run bench -- [flags]
 * node bench/start.mjs bench/profile.ts calls --cpu-out .cache/prof/ours.cpuprofile
 * ```
 *
 * esbuild bundles the script with our workspace packages from their sources
 * (the `@mcp-effect/source` condition, so there is no build step and no stale
 * `dist/`) into `.cache/bench/<name>.mjs`; every other package (`effect`,
 * `@effect/*`, the SDK, ...) stays external and loads from `node_modules`.
 * Then plain `node --expose-gc` runs it. Running under `tsx` instead would
 * transform every file with esbuild's `keepNames`, which wraps each named
 * function in a `__name(...)` call: extra work and memory per closure that a
 * published package does not have, and the SDK (plain JavaScript in
 * `node_modules`) would not pay either.
 *
 * Bench files locate fixtures and entries relative to `import.meta.url`; each
 * one keeps its own source address in the bundle, so those paths still work.
 */
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import { readFile } from "node:fs/promises"
import { basename, extname } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const [entry, ...args] = process.argv.slice(2)
if (entry === undefined || extname(entry) !== ".ts") {
  console.error("usage: node bench/start.mjs <bench/script.ts> [flags]")
  process.exit(2)
}

const root = fileURLToPath(new URL("..", import.meta.url))
const outfile = `${root}.cache/bench/${basename(entry, ".ts")}.mjs`

/** Our workspace packages are bundled; any other bare import stays external. */
const externalPackages = {
  name: "external-packages",
  setup(build) {
    build.onResolve(
      { filter: /^[^./]/ },
      (args) => args.path.startsWith("@mcp-effect/") ? undefined : { path: args.path, external: true }
    )
  }
}

/** Each bench or browser file keeps its own `import.meta.url`. */
const sourceUrls = {
  name: "source-urls",
  setup(build) {
    build.onLoad({ filter: /[\\/](bench|browser)[\\/].*\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8")).replaceAll(
        "import.meta.url",
        JSON.stringify(pathToFileURL(args.path).href)
      ),
      loader: "ts"
    }))
  }
}

await esbuild.build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["@mcp-effect/source"],
  outfile,
  logLevel: "warning",
  plugins: [externalPackages, sourceUrls]
})

const child = spawn(process.execPath, ["--expose-gc", outfile, ...args], { stdio: "inherit" })
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
