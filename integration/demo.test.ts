// The demo, run as a user runs it: `npm run demo` on the bundled defaults, and `--url` against an
// OAuth-protected server (a real oidc-provider), with a stand-in for the person at the browser.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { protectedServer } from "../packages/oauth/test/fixtures/harness.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const tsx = path.join(root, "node_modules/.bin/tsx")

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the demo; `onStderr` sees its stderr as it grows (the authorization URL is printed there). */
const runDemo = (args: ReadonlyArray<string>, onStderr: (text: string) => void = () => {}) =>
  Effect.async<Run>((resume) => {
    const child = spawn(tsx, ["--conditions=@mcp-effect/source", "examples/demo.ts", ...args], {
      cwd: root,
      // a fresh home: the token store starts empty
      env: { ...process.env, HOME: mkdtempSync(path.join(tmpdir(), "mcp-demo-home-")) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => stdout += chunk)
    child.stderr.on("data", (chunk) => {
      stderr += chunk
      onStderr(stderr)
    })
    child.on("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe("the demo", () => {
  it.live("walks through server-everything on the bundled defaults and exits 0", () =>
    Effect.gen(function*() {
      const run = yield* runDemo([])
      expect(run.code).toBe(0)
      for (
        const section of [
          "Server",
          "A tool call",
          "A long-running call",
          "cancelled mid-way",
          "task-augmented",
          "Resources",
          "Prompts"
        ]
      ) {
        expect(run.stdout).toContain(section)
      }
      expect(run.stdout).toContain("echo -> Echo: hello from Effect")
      expect(run.stdout).toMatch(/task \w+: completed/)
      expect(run.stdout).toContain("done.")
    }), 120_000)

  it.scopedLive(
    "completes the OAuth flow through the loopback callback against an OAuth-protected server",
    () =>
      Effect.gen(function*() {
        const { auth, mcp } = yield* protectedServer()
        let browsed: Promise<number> | undefined
        const run = yield* runDemo(["--url", mcp.url], (stderr) => {
          const printed = /Open this URL in your browser to authorize:\s+(\S+)/.exec(stderr)
          if (printed === null || browsed !== undefined) return
          // the person: logs in and consents, and the browser lands on the demo's loopback callback
          const url = new URL(printed[1]!)
          browsed = auth.drive(url, url.searchParams.get("redirect_uri")!).then((callback) =>
            fetch(callback).then((page) => page.status)
          )
        })
        expect(run.code).toBe(0)
        expect(yield* Effect.promise(() => browsed!)).toBe(200)
        expect(run.stdout).toContain("done.")
        const [authorization] = auth.authorizations
        expect(authorization!.get("code_challenge_method")).toBe("S256")
        expect(authorization!.get("resource")).toBe(mcp.resource)
        expect(new URL(authorization!.get("redirect_uri")!).hostname).toBe("127.0.0.1")
        expect(auth.registrations()).toBe(1)
        // no token reaches the demo's output
        expect(run.stdout + run.stderr).not.toMatch(/access_token|refresh_token/)
      }),
    120_000
  )
})
