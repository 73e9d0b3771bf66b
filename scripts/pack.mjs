// `npm run pack`: builds every package and packs it into `tarballs/` (git-ignored), so the packages
// can be used outside this repository before they are on the npm registry. Prints the install line:
// the tarballs plus the peers from the registry, at the versions this workspace pins.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { checkRepository } from "./key-material.mjs"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const workspace = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" })

checkRepository(root)
run("npm", ["run", "build"], root)
const out = path.join(root, "tarballs")
fs.mkdirSync(out, { recursive: true })
const tarballs = []
const peers = new Set()
for (const dir of workspace.workspaces) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8"))
  const [info] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", out], path.join(root, dir)))
  tarballs.push(path.join(out, info.filename))
  for (const [name] of Object.entries(manifest.peerDependencies ?? {})) {
    if (!manifest.peerDependenciesMeta?.[name]?.optional && name !== "react") peers.add(name)
  }
}
const pins = workspace.devDependencies
console.log(`packed ${tarballs.length} packages into ${path.relative(process.cwd(), out) || "."}/; in your app:\n`)
console.log(
  `npm install ${tarballs.join(" ")} ${[...peers].sort().map((name) => `${name}@${pins[name]}`).join(" ")}`
)
