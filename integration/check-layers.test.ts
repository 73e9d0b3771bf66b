import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { checkLayers } from "../scripts/check-layers.mjs"

// The layer check (`npm run check`) on small trees written here: what it must refuse, and what it lets pass.
const tree = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "check-layers-"))
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

const demo = {
  demo: {
    layers: ["wire", "client", "entry"],
    files: { "Wire.ts": "wire", "Client.ts": "client", "index.ts": "entry" }
  }
}

const withTree = (files: Record<string, string>, check: (problems: Array<string>) => void) => {
  const dir = tree(files)
  try {
    check(checkLayers(dir, demo).problems)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("the layer check", () => {
  it("fails on an import from a lower layer to a higher one, naming both files and their layers", () =>
    withTree({
      "packages/demo/src/Wire.ts": `import type { Client } from "./Client.js"\nexport type W = Client\n`,
      "packages/demo/src/Client.ts": `export interface Client { readonly id: number }\n`
    }, (problems) => {
      expect(problems).toEqual([
        expect.stringMatching(
          /^upward import: packages\/demo\/src\/Wire\.ts \(layer wire\) imports packages\/demo\/src\/Client\.ts \(layer client\)/
        )
      ])
    }))

  it("fails on a value import cycle, naming every file and import in it", () =>
    withTree({
      "packages/demo/src/Client.ts": `import { b } from "./internal/client/b.js"\nexport const a = () => b\n`,
      "packages/demo/src/internal/client/b.ts": `import { a } from "../../Client.js"\nexport const b = () => a\n`
    }, (problems) => {
      expect(problems).toHaveLength(1)
      expect(problems[0]).toContain("value import cycle in demo")
      expect(problems[0]).toContain("packages/demo/src/Client.ts -> packages/demo/src/internal/client/b.ts")
      expect(problems[0]).toContain("packages/demo/src/internal/client/b.ts -> packages/demo/src/Client.ts")
    }))

  it("lets a cycle pass when one side imports only types (even without `import type`)", () =>
    withTree({
      "packages/demo/src/Client.ts":
        `import { b } from "./internal/client/b.js"\nexport interface A { readonly n: number }\nexport const a = b\n`,
      "packages/demo/src/internal/client/b.ts": `import { A } from "../../Client.js"\nexport const b = (x: A) => x.n\n`
    }, (problems) => expect(problems).toEqual([])))

  it("fails on a file with no layer, saying how to assign it", () =>
    withTree({ "packages/demo/src/Extra.ts": `export const x = 1\n` }, (problems) => {
      expect(problems).toEqual([
        expect.stringContaining(
          `unassigned file: packages/demo/src/Extra.ts has no layer. Put it under packages/demo/src/internal/<layer>/, or add "Extra.ts": "<layer>"`
        )
      ])
    }))

  it("fails on a module importing another package's internal modules", () =>
    withTree({
      "packages/demo/src/Client.ts": `export { x } from "@mcp-effect/other/internal/x"\n`,
      "packages/other/src/index.ts": `export const y = 1\n`
    }, (problems) => {
      expect(problems).toEqual([
        expect.stringContaining(
          `internal import across packages: packages/demo/src/Client.ts imports "@mcp-effect/other/internal/x"`
        )
      ])
    }))
})
