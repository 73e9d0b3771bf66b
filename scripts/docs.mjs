// API reference from the JSDoc of every package (`@effect/docgen`, as Effect's own packages do):
// each package's `docs/modules/*.md`; `@example` blocks are type-checked. `npm run docs`.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const { workspaces } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
for (const dir of workspaces) {
  if (!fs.readdirSync(path.join(root, dir, "src")).some((f) => /^[A-Z].*\.ts$/.test(f))) {
    console.log(`docs: ${dir} has no public modules yet`)
    continue
  }
  console.log(`docs: ${dir}`)
  execFileSync(path.join(root, "node_modules/.bin/docgen"), [], { cwd: path.join(root, dir), stdio: "inherit" })
}
console.log(`docs: ${workspaces.length} packages, see packages/*/docs/modules`)
