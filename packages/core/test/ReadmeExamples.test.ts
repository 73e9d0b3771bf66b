// The README's examples are compiled files (examples/readme/core-*.ts, type-checked with the
// tools project): this keeps the README's copies identical to them.
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const readme = readFileSync(`${root}packages/core/README.md`, "utf8")
const examples = readdirSync(`${root}examples/readme`).filter((file) => file.startsWith("core-"))

describe("README examples", () => {
  it("has examples to check", () => {
    expect(examples.length).toBeGreaterThan(0)
  })
  for (const file of examples) {
    it(`quotes examples/readme/${file} verbatim`, () => {
      const source = readFileSync(`${root}examples/readme/${file}`, "utf8")
      expect(readme).toContain("```ts\n" + source + "```")
    })
  }
})
