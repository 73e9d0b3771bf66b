// The approval policy, the call log and output validation against a real server-everything process
// over stdio. The server's stdin goes through `tee`, so the test reads exactly what reached it.
import { describe, expect, it } from "@effect/vitest"
import {
  ApprovalDecision,
  ApprovalPolicy,
  type ApprovalRequest,
  Approver,
  McpClient,
  ToolCallLog
} from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { everythingEntry } from "./everything.js"

const sentTo = (file: string): Array<{ method?: string; params?: { name?: string } }> =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []

const calledTools = (file: string) => sentTo(file).filter((m) => m.method === "tools/call").map((m) => m.params?.name)

const waitFor = <A>(check: () => A | undefined | false, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const value = check()
      if (value) return value
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`timed out waiting for ${what}`)
  })

describe("approval against server-everything over stdio", () => {
  it.scopedLive("trusted-only: an untrusted server's calls are asked about; a denied one never reaches it", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-approval-")), "stdin.ndjson")
    const asked: Array<ApprovalRequest.ApprovalRequest> = []
    const services = Layer.mergeAll(
      ApprovalPolicy.layerMemory({ mode: "trusted-only" }),
      Approver.layer((request) =>
        Effect.sync(() => {
          asked.push(request)
          return request.tool.name === "echo"
            ? ApprovalDecision.deny("echo is not allowed here")
            : ApprovalDecision.approveOnce
        })
      ),
      ToolCallLog.layerMemory()
    )
    const client = McpClient.layer({ clientInfo: { name: "approval-test", version: "1.0.0" }, server: "everything" })
      .pipe(
        Layer.provideMerge(services),
        Layer.provide(NodeStdioTransport.layer({
          command: "/bin/sh",
          args: ["-c", `tee "$RECORD_FILE" | "${process.execPath}" "${everythingEntry}" stdio`],
          env: { RECORD_FILE: file }
        }))
      )
    return Effect.gen(function*() {
      const mcp = yield* McpClient.McpClient
      const denied = yield* Effect.flip(mcp.callTool({ name: "echo", arguments: { message: "should never arrive" } }))
      expect(denied).toMatchObject({ _tag: "ApprovalDenied", toolName: "echo", reason: "echo is not allowed here" })

      const weather = yield* mcp.callTool({ name: "get-structured-content", arguments: { location: "Chicago" } })
      expect(weather.structuredContent).toMatchObject({ conditions: "Light rain / drizzle" })

      // both tools claim to be read-only, but the server is not trusted: both were asked about,
      // with the server's own description of the tool
      expect(asked.map((r) => [r.server, r.trusted, r.tool.name])).toEqual([
        ["everything", false, "echo"],
        ["everything", false, "get-structured-content"]
      ])
      expect(asked[0].tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
      expect(asked[1].tool.title).toBe("Get Structured Content Tool")
      // its annotations claim nothing risky, but they are an untrusted server's own claims
      expect(asked[1].warnings.map((w) => w._tag)).toEqual(["UntrustedServer"])

      // tee writes in order: once the approved call is on record, anything sent before it is too
      yield* waitFor(() => calledTools(file).length > 0, "the approved call on record")
      expect(calledTools(file)).toEqual(["get-structured-content"])
      expect(readFileSync(file, "utf8")).not.toContain("should never arrive")

      const log = yield* ToolCallLog.ToolCallLog
      const records = yield* log.records.get
      expect(records.map((r) => [r.tool, r.status])).toEqual([["echo", "Denied"], [
        "get-structured-content",
        "Completed"
      ]])
      expect(records[1].result?.structuredContent).toEqual(weather.structuredContent)
    }).pipe(Effect.provide(client))
  })
})
