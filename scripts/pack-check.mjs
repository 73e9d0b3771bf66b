// Packs every workspace package and installs the tarballs into a fresh app outside the
// workspace (only the tarballs, plus `effect` and the platform packages from the registry), as a
// user would. Then, in that app:
//   1. type-checks examples/installed-app.ts (the README's quick start) and runs it against
//      @modelcontextprotocol/server-everything over stdio;
//   2. type-checks every public module of every package (skipLibCheck off);
//   3. bundles examples/installed-browser.ts for the browser with esbuild and prints its size.
// Also checks that `internal/` modules cannot be imported, and fails on key material (a `*.key` /
// `*.pem` file or a PEM private key) committed to the repository or packed into a tarball
// (`scripts/key-material.mjs`). Run by `npm run check:packages`.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { checkRepository, keyMaterial } from "./key-material.mjs"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const workspace = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
const run = (command, args, cwd, options = {}) =>
  execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...options })

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-pack-"))
let failed = false
try {
  // first, and cheap: no key material in the repository
  checkRepository(root)
  run("npx", ["tsc", "-b", "tsconfig.json"], root)
  run("node", ["scripts/bundle-node.mjs"], root)

  const tarballs = path.join(temp, "tarballs")
  fs.mkdirSync(tarballs)
  const packed = {}
  for (const dir of workspace.workspaces) {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8"))
    const [info] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", tarballs], path.join(root, dir)))
    packed[manifest.name] = `file:${path.join(tarballs, info.filename)}`
    if (info.files.some((f) => /(^|\/)test\//.test(f.path) || f.path.endsWith(".tsbuildinfo"))) {
      throw new Error(`${manifest.name}: the tarball holds tests or build info`)
    }
    const keys = keyMaterial(path.join(root, dir), info.files.map((f) => f.path))
    if (keys.length > 0) throw new Error(`${manifest.name}: the tarball holds key material: ${keys.join(", ")}`)
  }

  const app = path.join(temp, "app")
  fs.mkdirSync(app)
  const pins = workspace.devDependencies
  const fromRegistry = [
    "effect",
    "@effect/platform",
    "@effect/platform-node",
    "@effect/experimental",
    "@effect/platform-browser",
    // optional peers of the hub, for `@mcp-effect/hub/McpToolkit` (every public module is checked below)
    "@effect/ai",
    "@effect/rpc",
    "typescript",
    "@types/node",
    "@types/react",
    "esbuild"
  ]
  const esbuildVersion =
    JSON.parse(fs.readFileSync(path.join(root, "node_modules/esbuild/package.json"), "utf8")).version
  fs.writeFileSync(
    path.join(app, "package.json"),
    JSON.stringify(
      {
        name: "installed-app",
        private: true,
        type: "module",
        dependencies: {
          ...packed,
          ...Object.fromEntries(fromRegistry.map((name) => [name, name === "esbuild" ? esbuildVersion : pins[name]]))
        },
        overrides: packed
      },
      null,
      2
    )
  )
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app, { stdio: "inherit" })

  fs.copyFileSync(path.join(root, "examples/installed-app.ts"), path.join(app, "installed-app.ts"))
  fs.copyFileSync(path.join(root, "examples/installed-browser.ts"), path.join(app, "installed-browser.ts"))
  // every public module of every package, so the published types of each are checked, not only those the
  // quick start happens to import
  const entries = []
  for (const dir of workspace.workspaces) {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8"))
    for (const subpath of Object.keys(manifest.exports ?? {})) {
      if (subpath.endsWith(".json") || subpath.includes("*")) continue
      entries.push(manifest.name + subpath.slice(1))
    }
  }
  fs.writeFileSync(
    path.join(app, "every-entry.ts"),
    entries.map((name, i) => `import * as m${i} from ${JSON.stringify(name)}`).join("\n") +
      `\nexport const modules = [${entries.map((_, i) => `m${i}`).join(", ")}]\n`
  )
  fs.writeFileSync(
    path.join(app, "internal-import.ts"),
    `// @ts-expect-error internal modules are not exported\nimport * as session from "@mcp-effect/core/internal/session"\nexport { session }\n`
  )
  fs.writeFileSync(
    path.join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM"],
        strict: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        types: ["node"],
        outDir: "out"
      },
      include: ["*.ts"]
    })
  )
  run("npx", ["tsc", "-p", "."], app, { stdio: "inherit" })
  console.log(
    `pack: the installed packages type-check (skipLibCheck off, ${entries.length} public modules), internal/ is not importable`
  )

  const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
  const output = run("node", ["out/installed-app.js", "node", everything, "stdio"], app, { timeout: 60_000 })
  const result = JSON.parse(output.trim().split("\n").pop())
  if (!(result.tools > 0) || !String(result.echo).includes("from an installed app")) {
    throw new Error(`unexpected output from the installed app: ${output}`)
  }
  console.log(`pack: the installed app listed ${result.tools} tools and called echo over stdio`)

  // every public module through the `node` export condition (dist/node, one bundle per package): it
  // loads in plain Node, and a module imported by path is the very namespace an index of its package
  // (`.`, or `./node` for `./NodeWebSocketTransport`) exports: one copy of every class and tag. Not hub
  // (one file per module: optional peers) nor react (its peer `react` is not installed here).
  const nodeEntries = entries.filter((name) => !/^@mcp-effect\/(hub|react)(\/|$)/.test(name))
  fs.writeFileSync(
    path.join(app, "node-entries.mjs"),
    `const entries = ${JSON.stringify(nodeEntries)}\n` +
      `const loaded = new Map()\n` +
      `for (const name of entries) loaded.set(name, await import(name))\n` +
      `let compared = 0\n` +
      `for (const [name, module] of loaded) {\n` +
      `  const [, pkg, sub] = /^(@mcp-effect\\/[^/]+)(?:\\/(.+))?$/.exec(name)\n` +
      `  for (const [other, index] of loaded) {\n` +
      `    if (sub === undefined || other === name || !(other === pkg || other.startsWith(pkg + "/")) || typeof index[sub] !== "object") continue\n` +
      `    if (Object.keys(module).some((key) => index[sub][key] !== module[key])) throw new Error(name + " is not " + other + "'s " + sub)\n` +
      `    compared++\n` +
      `  }\n` +
      `}\n` +
      `process.stdout.write(loaded.size + " " + compared)\n`
  )
  const [loaded, compared] = run("node", ["node-entries.mjs"], app, { timeout: 60_000 }).split(" ")
  console.log(
    `pack: ${loaded} public modules load in Node (dist/node); ${compared} are the same namespace as an index's`
  )

  const bundle = path.join(app, "out/browser.js")
  run("npx", [
    "esbuild",
    "installed-browser.ts",
    "--bundle",
    "--minify",
    "--format=esm",
    "--platform=browser",
    `--outfile=${bundle}`
  ], app)
  const gzip = zlib.gzipSync(fs.readFileSync(bundle)).length
  console.log(`pack: browser bundle of the installed HTTP client: ${(gzip / 1024).toFixed(1)} KB gzip`)
} catch (error) {
  failed = true
  console.error(`pack: ${error.message}`)
} finally {
  fs.rmSync(temp, { recursive: true, force: true })
}
console.log(`pack: ${failed ? "0 passed, 1 failed" : "1 passed, 0 failed"}`)
process.exit(failed ? 1 : 0)
