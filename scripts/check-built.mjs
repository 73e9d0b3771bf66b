// Refuses to publish a package whose `exports` point at files that are not there: run by each
// package's `prepublishOnly` (from its own directory), so `changeset publish` or `npm publish`
// after `tsc -b` alone (no `dist/node`, see scripts/bundle-node.mjs) stops before uploading.
//
//   node ../../scripts/check-built.mjs   in a package directory
import * as fs from "node:fs"
import * as path from "node:path"

/** The files a package's `exports` name (every condition but the source one) that do not exist under `dir`. */
export const missingFiles = (dir) => {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
  const targets = new Set()
  const collect = (value) => {
    if (typeof value === "string") targets.add(value)
    else if (value !== null && typeof value === "object") {
      for (const [condition, inner] of Object.entries(value)) if (condition !== "@mcp-effect/source") collect(inner)
    }
  }
  collect(manifest.exports ?? {})
  return [...targets].filter((file) => !file.includes("*") && !fs.existsSync(path.join(dir, file))).sort()
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const missing = missingFiles(process.cwd())
  if (missing.length > 0) {
    console.error(
      `not built: ${missing.length} file(s) named by "exports" are missing, e.g. ${missing.slice(0, 3).join(", ")}`
    )
    console.error("run `npm run build` at the repository root (or publish with `npm run release`)")
    process.exit(1)
  }
}
