// Each package README starts with an Install section whose `npm install` line is complete: the
// package's tarball, the tarballs of every @mcp-effect package it depends on (transitively), and
// each of its required peers at the version this workspace pins.
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const workspace = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly workspaces: ReadonlyArray<string>
  readonly devDependencies: Record<string, string>
}
interface Manifest {
  readonly name: string
  readonly version: string
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}
const manifests = new Map(workspace.workspaces.map((dir) => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8")) as Manifest
  return [manifest.name, { dir, manifest }] as const
}))

const closure = (name: string, seen = new Set<string>()): Set<string> => {
  if (seen.has(name)) return seen
  seen.add(name)
  for (const dep of Object.keys(manifests.get(name)?.manifest.dependencies ?? {})) {
    if (manifests.has(dep)) closure(dep, seen)
  }
  return seen
}

const tarball = (name: string) =>
  `${name.replace("@", "").replace("/", "-")}-${manifests.get(name)!.manifest.version}.tgz`

describe("the Install sections", () => {
  for (const [name, { dir, manifest }] of manifests) {
    it(`${name}: the README starts with one, its npm install line complete`, () => {
      const readme = fs.readFileSync(path.join(root, dir, "README.md"), "utf8")
      expect(readme.split("\n").slice(0, 3)).toEqual([`# ${name}`, "", "## Install"])
      const line = /```sh\n(npm install [\s\S]*?)\n```/.exec(readme)?.[1].replace(/\\\n\s*/g, "") ?? ""
      for (const dep of closure(name)) expect(line).toContain(tarball(dep))
      for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
        if (manifest.peerDependenciesMeta?.[peer]?.optional) continue
        expect(line).toContain(peer === "react" ? " react " : `${peer}@${workspace.devDependencies[peer]}`)
      }
    })
  }

  it("the root README says how to use the packages outside the repository", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
    expect(readme).toContain("## Using the packages outside this repository")
    expect(readme).toContain("npm run pack")
    expect(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.pack).toBe(
      "node scripts/pack.mjs"
    )
  })

  it("a hub app installs no @effect/ai, @effect/rpc or @effect/experimental of its own: optional peers, McpToolkit by path", () => {
    const hub = manifests.get("@mcp-effect/hub")!.manifest
    for (const peer of ["@effect/ai", "@effect/rpc", "@effect/experimental"]) {
      expect(hub.peerDependenciesMeta?.[peer]?.optional).toBe(true)
    }
    // only the McpToolkit modules import @effect/ai, and the index leaves them out
    const src = path.join(root, "packages/hub/src")
    const importers = fs.readdirSync(src, { recursive: true, encoding: "utf8" })
      .filter((file) =>
        file.endsWith(".ts") && /from "@effect\/(ai|rpc)/.test(fs.readFileSync(path.join(src, file), "utf8"))
      )
      .sort()
    expect(importers).toEqual(["McpToolkit.ts", path.join("internal", "toolkit.ts")])
    expect(fs.readFileSync(path.join(src, "index.ts"), "utf8")).not.toMatch(/from "\.\/McpToolkit\.js"/)
  })
})
