// The hub README's "one line for an app" (examples/readme/hub-node.ts, quoted verbatim by the README),
// run as written: `mcp.json` in the working directory with server-everything over stdio.
import { describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { program } from "../examples/readme/hub-node.js"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

describe("the hub README's one line for an app", () => {
  it.live("runs as written: waits for the servers, calls echo, shows the history", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "hub-readme-"))
      writeFileSync(
        join(dir, "mcp.json"),
        // the README says the example's server is marked trusted: under `trusted-only` nothing else runs unasked
        JSON.stringify({
          mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"], trusted: true } }
        })
      )
      const before = process.cwd()
      const logs = vi.spyOn(console, "log").mockImplementation(() => {})
      try {
        process.chdir(dir)
        yield* program
        const lines = logs.mock.calls.map((args) =>
          args.map((arg) => typeof arg === "string" ? arg : JSON.stringify(arg)).join(" ")
        )
        expect(lines[0]).toMatch(/^everything: Connected \(\d+ tools\)$/)
        expect(lines[1]).toContain("echo -> everything/echo")
        expect(lines[2]).toContain("Echo: hi")
        expect(lines[3]).toBe(JSON.stringify(["Completed"]))
      } finally {
        process.chdir(before)
        logs.mockRestore()
        rmSync(dir, { recursive: true, force: true })
      }
    }), { timeout: 60_000 })
})
