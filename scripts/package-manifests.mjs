// Keeps every workspace package's manifest publishable, and checks it in CI:
// - `exports` lists `.` and each public module (`src/<Module>.ts`), never `internal/`;
//   other subpaths a package declares by hand (e.g. `./node`) are kept;
// - `effect` and `@effect/*` are peer dependencies (a 3.x range), never dependencies;
// - the fields a registry page and an installer need are present;
// - `prepublishOnly` refuses to publish a package whose `exports` name files not built.
//
//   node scripts/package-manifests.mjs          rewrite the manifests
//   node scripts/package-manifests.mjs --check  exit 1 if a manifest is out of date
import * as fs from "node:fs"
import * as path from "node:path"
import { bundledForNode } from "./bundle-node.mjs"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const workspace = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
const check = process.argv.includes("--check")
const pinned = workspace.devDependencies
let stale = 0

const entry = (name, bundled) => ({
  "@mcp-effect/source": `./src/${name}.ts`,
  types: `./dist/${name}.d.ts`,
  // Node loads one bundled file per package (`bundledForNode`) (scripts/bundle-node.mjs); bundlers keep one file per module
  ...(bundled ? { node: `./dist/node/${name}.js` } : {}),
  default: `./dist/${name}.js`
})

for (const dir of workspace.workspaces) {
  const file = path.join(root, dir, "package.json")
  const before = fs.readFileSync(file, "utf8")
  const manifest = JSON.parse(before)
  const modules = fs.readdirSync(path.join(root, dir, "src"))
    .filter((f) => /^[A-Z][A-Za-z0-9]*\.ts$/.test(f))
    .map((f) => f.slice(0, -3))
    .sort()
  const manual = Object.fromEntries(
    Object.entries(manifest.exports ?? {}).filter(([key, value]) =>
      key !== "." && key !== "./*" && key !== "./package.json" && !/^\.\/[A-Z]/.test(key) && value !== null &&
      !key.startsWith("./internal")
    )
  )
  const bundled = bundledForNode(manifest)
  // a subpath declared by hand with a module of its own (`./node`: `src/node.ts`) gets the same conditions
  for (const [key, value] of Object.entries(manual)) {
    const source = /^\.\/src\/([A-Za-z0-9]+)\.ts$/.exec(value?.["@mcp-effect/source"] ?? "")
    if (source !== null) manual[key] = entry(source[1], bundled)
  }
  const exports = {
    ".": entry("index", bundled),
    ...Object.fromEntries(modules.map((m) => [`./${m}`, entry(m, bundled)])),
    ...manual
  }
  exports["./package.json"] = "./package.json"

  const dependencies = { ...manifest.dependencies }
  const peerDependencies = { ...manifest.peerDependencies }
  for (const [name, version] of Object.entries(dependencies)) {
    if (name === "effect" || name.startsWith("@effect/")) {
      delete dependencies[name]
      peerDependencies[name] = `^${version.replace(/^[\^~]/, "")}`
    }
  }
  for (const name of Object.keys(peerDependencies)) {
    if ((name === "effect" || name.startsWith("@effect/")) && !pinned[name]) {
      console.error(`${dir}: peer ${name} is not pinned in the workspace's devDependencies`)
      stale++
    }
  }

  const next = {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    license: "MIT",
    homepage: `https://github.com/mcp-effect/mcp-effect/tree/main/${dir}#readme`,
    repository: { type: "git", url: "git+https://github.com/mcp-effect/mcp-effect.git", directory: dir },
    type: "module",
    engines: { node: ">=20" },
    sideEffects: false,
    exports,
    files: ["dist", "!dist/.tsbuildinfo", "src", "README.md"],
    // refuse to publish what `exports` names but the build has not made (scripts/check-built.mjs)
    scripts: { prepublishOnly: "node ../../scripts/check-built.mjs" },
    ...(manifest.bin ? { bin: manifest.bin } : {}),
    ...(Object.keys(dependencies).length ? { dependencies: sortKeys(dependencies) } : {}),
    peerDependencies: sortKeys(peerDependencies),
    ...(manifest.peerDependenciesMeta ? { peerDependenciesMeta: manifest.peerDependenciesMeta } : {})
  }
  const after = JSON.stringify(next, null, 2) + "\n"
  if (after !== before) {
    if (check) {
      console.error(`${dir}/package.json is out of date: run node scripts/package-manifests.mjs`)
      stale++
    } else {
      fs.writeFileSync(file, after)
      console.log(`updated ${dir}/package.json`)
    }
  }
}

function sortKeys(record) {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))
}

if (stale > 0) process.exit(1)
