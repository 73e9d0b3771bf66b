import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { bundleNode } from "../scripts/bundle-node.mjs"
import { missingFiles } from "../scripts/check-built.mjs"

// `dist/node/` (scripts/bundle-node.mjs, the `node` export condition): one bundle per package with a
// small re-exporting file per public module. Built here for core and transport-stdio into a
// `node_modules` under `.cache/` (so `effect` resolves from the workspace), then a plain `node`
// process imports every public module by its package specifier, as an installed app does, and
// reports each module's export names and whether the barrel's namespace holds the very same values.
const repo = fileURLToPath(new URL("..", import.meta.url))
const target = path.join(repo, ".cache/test-node-bundle")

const publish = async (name: string) => {
  const root = path.join(repo, "packages", name)
  const dir = path.join(target, "node_modules/@mcp-effect", name)
  fs.mkdirSync(dir, { recursive: true })
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest))
  await bundleNode(root, path.join(dir, "dist/node"))
  return manifest as { readonly exports: Record<string, unknown> }
}

/** Loads every public module of `name` in a plain Node process; its export names, and the barrel check. */
const loadAll = (name: string, subpaths: ReadonlyArray<string>) => {
  const script = `
    const barrel = await import(${JSON.stringify(name)})
    const out = {}
    for (const sub of ${JSON.stringify(subpaths)}) {
      const module = await import(${JSON.stringify(name)} + sub.slice(1))
      const inBarrel = barrel[sub.slice(2)]
      out[sub] = {
        names: Object.keys(module).sort(),
        sameAsBarrel: inBarrel !== undefined && Object.keys(module).every((key) => inBarrel[key] === module[key])
      }
    }
    out["."] = { names: Object.keys(barrel).sort(), sameAsBarrel: true }
    process.stdout.write(JSON.stringify(out))
  `
  return JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: target, encoding: "utf8" })
  ) as Record<
    string,
    { readonly names: ReadonlyArray<string>; readonly sameAsBarrel: boolean }
  >
}

describe("dist/node (the node export condition)", () => {
  it(
    "exports every public module with the names of its source, sharing one copy with the barrel",
    { timeout: 120_000 },
    async () => {
      fs.rmSync(target, { recursive: true, force: true })
      for (const name of ["core", "transport-stdio"]) {
        const manifest = await publish(name)
        const subpaths = Object.keys(manifest.exports).filter((sub) => sub !== "." && sub !== "./package.json")
        const loaded = loadAll(`@mcp-effect/${name}`, subpaths)
        for (const sub of [".", ...subpaths]) {
          const source: Record<string, unknown> = await import(`@mcp-effect/${name}${sub.slice(1)}`)
          expect(loaded[sub]?.names, `@mcp-effect/${name}${sub.slice(1)}`).toEqual(Object.keys(source).sort())
          expect(loaded[sub]?.sameAsBarrel, `@mcp-effect/${name}${sub.slice(1)} is the barrel's ${sub.slice(2)}`).toBe(
            true
          )
        }
      }
      // transport-stdio's bundle imports core by package specifier: both see one `McpError` family
      const shared = execFileSync(process.execPath, [
        "--input-type=module",
        "-e",
        `const core = await import("@mcp-effect/core/McpError")
       const barrel = await import("@mcp-effect/core")
       process.stdout.write(String(core.TransportError === barrel.McpError.TransportError))`
      ], { cwd: target, encoding: "utf8" })
      expect(shared).toBe("true")
      fs.rmSync(target, { recursive: true, force: true })
    }
  )

  it("prepublishOnly refuses a package whose dist/node is not built", { timeout: 60_000 }, async () => {
    const root = path.join(repo, "packages/transport-stdio")
    const dir = path.join(repo, ".cache/test-check-built")
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
    expect(manifest.scripts?.prepublishOnly).toBe("node ../../scripts/check-built.mjs")
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest))
    const nodeTargets = Object.values(manifest.exports as Record<string, { readonly node?: string }>)
      .flatMap((entry) => (entry.node === undefined ? [] : [entry.node]))
    expect(nodeTargets.length).toBeGreaterThan(0)
    // as after `tsc -b` alone: the `node` condition's files are missing and named
    expect(missingFiles(dir)).toEqual(expect.arrayContaining(nodeTargets))
    const refused = spawnSync(process.execPath, [path.join(repo, "scripts/check-built.mjs")], {
      cwd: dir,
      encoding: "utf8"
    })
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain("npm run build")
    // built: none of them is missing any more (the `types` / `default` files are tsc's, not made here)
    await bundleNode(root, path.join(dir, "dist/node"))
    expect(missingFiles(dir).filter((file) => file.startsWith("./dist/node/"))).toEqual([])
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
