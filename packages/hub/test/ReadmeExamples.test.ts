// The README's examples are compiled files (examples/readme/hub-*.ts, type-checked with the tools
// project): this keeps the READMEs' copies identical to them. `integration/readme-app.test.ts`
// runs the "one line for an app" example as written.
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const readme = readFileSync(`${root}packages/hub/README.md`, "utf8")
const examples = readdirSync(`${root}examples/readme`).filter((file) => file.startsWith("hub-"))

describe("README examples", () => {
  it("has examples to check", () => {
    expect(examples.length).toBe(4)
  })
  for (const file of examples) {
    it(`quotes examples/readme/${file} verbatim`, () => {
      expect(readme).toContain("```ts\n" + readFileSync(`${root}examples/readme/${file}`, "utf8") + "```")
    })
  }
  it("the kv-redis README quotes the Redis example", () => {
    const kv = readFileSync(`${root}packages/kv-redis/README.md`, "utf8")
    expect(kv).toContain("```ts\n" + readFileSync(`${root}examples/readme/hub-redis.ts`, "utf8") + "```")
  })
})
