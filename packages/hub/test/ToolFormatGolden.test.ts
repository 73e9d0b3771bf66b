// Golden files: the live tool lists and results of two real servers, formatted
// for each provider, compared with the files under test/golden (run vitest with
// -u to rewrite them after an intended change, and review the diff).
import { afterAll, expect, layer } from "@effect/vitest"
import { McpClient, type McpSchema } from "@mcp-effect/core"
import { ToolFormat } from "@mcp-effect/hub"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { everything, filesystem, toolsWith } from "./servers.js"

const golden = (name: string, value: unknown, normalise: (json: string) => string = (json) => json) =>
  Effect.promise(() =>
    expect(normalise(JSON.stringify(value, null, 2)) + "\n").toMatchFileSnapshot(path.join("golden", `${name}.json`))
  )

const formatTools = (server: string, tools: ReadonlyArray<McpSchema.Tool>) =>
  Effect.all([
    golden(`${server}.tools.openai-chat`, tools.map((tool) => ToolFormat.openAiChatTool(tool))),
    golden(`${server}.tools.openai-responses`, tools.map((tool) => ToolFormat.openAiResponsesTool(tool))),
    golden(`${server}.tools.anthropic`, tools.map(ToolFormat.anthropicTool)),
    golden(`${server}.tools.gemini`, tools.map(ToolFormat.geminiFunctionDeclaration))
  ])

const formatResults = (
  server: string,
  results: ReadonlyArray<readonly [string, McpSchema.CallToolResult]>,
  normalise?: (json: string) => string
) =>
  golden(
    `${server}.results`,
    results.map(([name, result]) => ({
      tool: name,
      "openai-chat": ToolFormat.openAiChatResult(`call_${name}`, result),
      "openai-responses": ToolFormat.openAiResponsesResult(`call_${name}`, result),
      anthropic: ToolFormat.anthropicResult(`toolu_${name}`, result),
      gemini: ToolFormat.geminiResult(name, result, { id: `fc_${name}` })
    })),
    normalise
  )

const call = (name: string, args: Record<string, unknown> = {}) =>
  Effect.flatMap(
    McpClient.McpClient,
    (client) => Effect.map(client.callTool({ name, arguments: args }), (result) => [name, result] as const)
  )

layer(everything, { timeout: 60_000, excludeTestServices: true })("golden: server-everything", (it) => {
  it.effect("tools and results for each provider", () =>
    Effect.gen(function*() {
      const tools = yield* toolsWith([
        "get-roots-list",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "simulate-research-query"
      ])
      expect(tools.length).toBeGreaterThanOrEqual(16)
      yield* formatTools("everything", tools)
      const results = yield* Effect.all([
        call("echo", { message: "golden" }),
        call("get-tiny-image"),
        call("get-structured-content", { location: "Chicago" }),
        call("get-resource-reference", { resourceType: "Text", resourceId: 1 }),
        call("gzip-file-as-resource", {
          name: "hello.txt.gz",
          data: `data:text/plain;base64,${Buffer.from("hello golden\n").toString("base64")}`,
          outputType: "resource"
        }),
        call("get-resource-links", { count: 2 })
      ])
      // the text resource carries the time it was created
      yield* formatResults("everything", results, (json) =>
        json.replace(/created at [0-9:.]+\s?([AaPp]\.?[Mm]\.?)?/g, "created at <time>"))
    }))
})

const root = fs.mkdtempSync(path.join(os.tmpdir(), "formats-golden-"))
fs.writeFileSync(path.join(root, "notes.txt"), "first line\nsecond line\n")
// a 1x1 transparent PNG
fs.writeFileSync(
  path.join(root, "dot.png"),
  Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64")
)
const realRoot = fs.realpathSync(root)
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
const hideRoot = (json: string) => json.split(realRoot).join("<root>").split(root).join("<root>")

layer(filesystem(root), { timeout: 60_000, excludeTestServices: true })("golden: filesystem server", (it) => {
  it.effect("tools and results for each provider", () =>
    Effect.gen(function*() {
      const tools = yield* toolsWith(["read_text_file", "write_file"])
      yield* formatTools("filesystem", tools)
      const results = yield* Effect.all([
        call("read_text_file", { path: path.join(root, "notes.txt") }),
        call("read_media_file", { path: path.join(root, "dot.png") }),
        call("read_text_file", { path: path.join(root, "missing.txt") })
      ])
      expect(results[2][1].isError).toBe(true)
      yield* formatResults("filesystem", results, hideRoot)
    }))
})
