// The "Durable work" example, run as the READMEs say (`npm run example:durable`): a caller process
// killed while the server waits for input, another process that finds the call on Redis and
// completes it once, and a second answer refused.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

describe("the durable work example", () => {
  it.live("a call left by a killed process is answered by another, once", () =>
    Effect.gen(function*() {
      const run = yield* Effect.async<{ readonly code: number | null; readonly stdout: string }>((resume) => {
        const child = spawn(
          path.join(root, "node_modules/.bin/tsx"),
          ["--conditions=@mcp-effect/source", "examples/durable/run.ts"],
          { cwd: root, stdio: ["ignore", "pipe", "inherit"] }
        )
        let stdout = ""
        child.stdout.on("data", (chunk) => stdout += chunk)
        child.on("exit", (code) => resume(Effect.succeed({ code, stdout })))
        return Effect.sync(() => child.kill("SIGTERM"))
      })
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/A: asked for a name; waiting/)
      expect(run.stdout).toMatch(/A killed while the server waits for a name/)
      expect(run.stdout).toMatch(/B: 1 pending; answering/)
      expect(run.stdout).toMatch(/B: the call completed: .*hello Ada/)
      expect(run.stdout).toMatch(/B: answering again: ContinuationAlreadyAnswered/)
    }), 120_000)
})
