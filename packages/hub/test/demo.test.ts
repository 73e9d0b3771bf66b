// `npm run demo -- --config examples/mcp.json --approval always-ask`, run as a user runs it, with
// the answers typed into its stdin.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))

const runDemo = (args: ReadonlyArray<string>, input: string) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string }>((resume) => {
    const child = spawn(Path.join(root, "node_modules/.bin/tsx"), [
      "--conditions=@mcp-effect/source",
      "examples/demo.ts",
      ...args
    ], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk) => stdout += chunk)
    child.stdin.end(input)
    child.on("exit", (code) => resume(Effect.succeed({ code, stdout })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe("the hub demo", () => {
  it.live("shows the servers, the tools, and asks before each call (yes / always / no)", () =>
    Effect.gen(function*() {
      const { code, stdout } = yield* runDemo(
        ["--config", "examples/mcp.json", "--approval", "always-ask"],
        "y\na\nn\n"
      )
      expect(code).toBe(0)
      expect(stdout).toMatch(/everything\s+Connected\s+stdio\s+\d+ tools\s+2025-11-25/)
      expect(stdout).toMatch(/files\s+Connected\s+stdio\s+14 tools/)
      expect(stdout).toMatch(/write_file\s+files/)
      expect(stdout).toContain("echo -> Echo: hello from the hub")
      expect(stdout).toMatch(/write_file -> Successfully wrote to .*hello\.txt/)
      expect(stdout).toContain("list_directory -> ApprovalDenied")
      expect(stdout).toMatch(
        /everything\s+echo\s+Completed\n\s+files\s+write_file\s+Completed\n\s+files\s+list_directory\s+Denied\n\s+everything\s+echo\s+Denied/
      )
    }), { timeout: 120_000 })

  it.live(
    "with stdin closed, every question is answered no and the demo ends; no ANSI codes in a pipe",
    () =>
      Effect.gen(function*() {
        const { code, stdout } = yield* runDemo(["--config", "examples/mcp.json", "--approval", "always-ask"], "")
        expect(code).toBe(0)
        expect(stdout).toContain("(stdin closed: no)")
        expect(stdout).toContain("echo -> ApprovalDenied")
        expect(stdout).toContain("list_directory -> ApprovalDenied")
        expect(stdout).toMatch(
          /everything\s+echo\s+Denied\n\s+files\s+write_file\s+Denied\n\s+files\s+list_directory\s+Denied\n\s+everything\s+echo\s+Denied/
        )
        expect(stdout).not.toContain("\x1b[")
      }),
    { timeout: 120_000 }
  )

  it.live(
    "--deferred: shows the model-facing payload, a search, and the activated call through the approval policy",
    () =>
      Effect.gen(function*() {
        const { code, stdout } = yield* runDemo([
          "--config",
          "examples/mcp.json",
          "--deferred",
          "--approval",
          "always-ask"
        ], "y\n")
        expect(code).toBe(0)
        const [, payload, all] =
          stdout.match(/1 tool\(s\), about (\d+) tokens \(every tool: \d+ tools, about (\d+) tokens\)/) ?? []
        expect(Number(payload)).toBeLessThan(Number(all))
        expect(stdout).toMatch(/- files \(14 tools\)/)
        expect(stdout).toContain("- write_file (server files)")
        expect(stdout).toMatch(/next turn offers: search_tools, .*write_file/)
        expect(stdout).toContain("files (untrusted) wants to run write_file")
        expect(stdout).toMatch(/write_file -> Successfully wrote to .*hello\.txt/)
        expect(stdout).toMatch(/files\s+write_file\s+Completed/)
      }),
    { timeout: 120_000 }
  )
})
