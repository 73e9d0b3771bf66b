import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { checkRepository } from "../scripts/key-material.mjs"

// The pack check (`npm run check:packages`) starts with this check: key material committed to the
// repository (or packed into a tarball) fails it.
const root = fileURLToPath(new URL("..", import.meta.url))

const repository = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "key-material-"))
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
  execFileSync("git", ["init", "-q"], { cwd: dir })
  execFileSync("git", ["add", "-A"], { cwd: dir })
  return dir
}

describe("the pack check's key material check", () => {
  it("fails on a committed key file or a PEM private key, naming each", () => {
    const dir = repository({
      "store.key": "q5Yh0c3l8Zq8l0m8QmV7vC0m3kq0XkQy7eH6v2yVxwQ=",
      // built here, so that this file holds no key header itself
      "notes.txt": `-----BEGIN ${"PRIVATE"} KEY-----\nMIIE\n-----END ${"PRIVATE"} KEY-----\n`,
      "README.md": "nothing secret"
    })
    try {
      expect(() => checkRepository(dir)).toThrow(
        /key material is committed .*: notes\.txt, store\.key|store\.key, notes\.txt/
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("passes on a repository without any, this one included", () => {
    const dir = repository({ "README.md": "nothing secret" })
    try {
      expect(() => checkRepository(dir)).not.toThrow()
      expect(() => checkRepository(root)).not.toThrow()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
