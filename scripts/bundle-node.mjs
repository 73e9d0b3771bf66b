// Writes each workspace package's `dist/node/`: what Node loads through the `node` export condition.
//
// `tsc -b` writes `dist/` one file per source module (the `default` condition). Bundlers keep using
// it: with `sideEffects: false` they drop every module an app never reaches, which a bundled file
// would not allow (measured: the browser client's bundle grows 127 → 142 KB gzip from one bundled
// file per package). Node cannot drop anything, and it pays per file: resolving every
// `import * as X from "effect/X"` of every module (package `exports` lookups, `stat`, `realpath`)
// costs more than evaluating the module (`import("@mcp-effect/core")` and transport-stdio after
// the Effect modules they use: ~270 ms CPU as 84 files, ~105 ms as one file each; the bench's
// `stdio cold start, packages as published` row). So for Node each package is one bundle:
//
//   dist/node/internal/bundle.js   every public module, each export renamed `<Module>$<name>`
//   dist/node/internal/chunk-*.js  what the sources load with a dynamic `import()`
//   dist/node/<Module>.js          `export { <Module>$a as a, ... } from "./internal/bundle.js"`
//
// so `@mcp-effect/core` and `@mcp-effect/core/McpClient` share one copy of every class, tag and
// schema. `effect`, `@effect/*`, other `@mcp-effect/*` packages and every dependency stay imports.
//
//   node scripts/bundle-node.mjs                   every workspace package (`npm run build` runs it after tsc)
//   node scripts/bundle-node.mjs packages/core     one package
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const virtual = "mcp-effect-node-bundle"

/**
 * Whether a package gets `dist/node/`. Not a package with an optional peer dependency (hub:
 * `@effect/platform-node` or `-browser`): its bundle would import every optional peer at load,
 * where one file per module imports only what the app's modules reach.
 */
export const bundledForNode = (manifest) =>
  !Object.values(manifest.peerDependenciesMeta ?? {}).some((meta) => meta?.optional === true)

/** The package's public modules: every `exports` entry with a source file (`.`, `./McpClient`, ...). */
const publicModules = (root) => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
  return Object.values(manifest.exports ?? {})
    .filter((entry) => typeof entry === "object" && entry !== null && typeof entry["@mcp-effect/source"] === "string")
    .map((entry) => {
      const source = path.resolve(root, entry["@mcp-effect/source"])
      return { source, name: path.basename(source, ".ts") }
    })
}

/** The runtime export names of each module (types are erased), as esbuild sees them. */
const exportNames = async (root, modules) => {
  const probe = await esbuild.build({
    absWorkingDir: root,
    entryPoints: modules.map((m) => m.source),
    outdir: "probe",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    packages: "external",
    write: false,
    metafile: true,
    logLevel: "silent"
  })
  const byEntry = new Map(
    Object.values(probe.metafile.outputs)
      .filter((output) => output.entryPoint !== undefined)
      .map((output) => [path.resolve(root, output.entryPoint), output.exports])
  )
  return new Map(modules.map((m) => [m.name, byEntry.get(m.source) ?? []]))
}

/**
 * Builds `<root>/src` into `<outdir>` (default `<root>/dist/node`) as described above.
 * Returns the files written, relative to `outdir`.
 */
export const bundleNode = async (root, outdir = path.join(root, "dist/node")) => {
  const modules = publicModules(root)
  const seen = new Set()
  for (const m of modules) {
    if (seen.has(m.name)) {
      throw new Error(`${root}: two public modules named ${m.name}: their dist/node files would clash`)
    }
    seen.add(m.name)
  }
  const names = await exportNames(root, modules)
  const contents = modules
    .map((m) => {
      const list = names.get(m.name).map((n) => `${n} as ${m.name}$${n}`)
      return `export { ${list.join(", ")} } from ${JSON.stringify(m.source)}`
    })
    .join("\n")
  fs.rmSync(outdir, { recursive: true, force: true })
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { "internal/bundle": virtual },
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: "internal/chunk-[hash]",
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
    plugins: [{
      name: virtual,
      setup: (build) => {
        build.onResolve({ filter: new RegExp(`^${virtual}$`) }, () => ({ path: virtual, namespace: virtual }))
        build.onLoad(
          { filter: /.*/, namespace: virtual },
          () => ({ contents, resolveDir: path.join(root, "src"), loader: "js" })
        )
      }
    }]
  })
  const written = Object.keys(result.metafile.outputs).map((file) => path.relative(outdir, path.resolve(root, file)))
  for (const m of modules) {
    const list = names.get(m.name).map((n) => `${m.name}$${n} as ${n}`)
    fs.writeFileSync(path.join(outdir, `${m.name}.js`), `export { ${list.join(", ")} } from "./internal/bundle.js"\n`)
    written.push(`${m.name}.js`)
  }
  return written
}

// run as a script (not when bundled into the bench, where `import.meta.url` is the bench's own file)
if (
  path.basename(process.argv[1] ?? "") === "bundle-node.mjs" && import.meta.url === pathToFileURL(process.argv[1]).href
) {
  const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
  const given = process.argv.slice(2)
  const dirs = given.length > 0
    ? given
    : JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")).workspaces
  for (const dir of dirs) {
    if (!bundledForNode(JSON.parse(fs.readFileSync(path.join(repo, dir, "package.json"), "utf8")))) {
      fs.rmSync(path.join(repo, dir, "dist/node"), { recursive: true, force: true })
      console.log(`${dir}: one file per module (an optional peer dependency)`)
      continue
    }
    const files = await bundleNode(path.resolve(repo, dir))
    console.log(`${dir}: dist/node, ${files.filter((f) => f.endsWith(".js")).length} files`)
  }
}
