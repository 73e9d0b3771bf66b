import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  ApprovalDecision,
  ApprovalPolicy,
  Approver,
  McpClient,
  type McpSchema,
  TestServer,
  ToolCallLog
} from "@mcp-effect/core"
import { ToolFormat } from "@mcp-effect/hub"
import * as McpToolkit from "@mcp-effect/hub/McpToolkit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { everything, toolsWith } from "./servers.js"

/**
 * A language model that answers from a script: turn `n` gets the request the
 * provider would get (tools, prompt) and returns the parts a provider would
 * have decoded. Every request is kept for the test to read.
 */
const scriptedModel = (
  script: ReadonlyArray<(options: LanguageModel.ProviderOptions) => Array<Response.PartEncoded>>,
  requests: Array<LanguageModel.ProviderOptions>
) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          requests.push(options)
          const turn = script[requests.length - 1]
          return turn === undefined ? [{ type: "text", text: "(script ended)" }] : turn(options)
        }),
      streamText: () => Stream.empty
    })
  )

const finish: Response.PartEncoded = {
  type: "finish",
  reason: "tool-calls",
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
}

const callOf = (id: string, name: string, params: unknown): Array<Response.PartEncoded> => [
  { type: "tool-call", id, name, params },
  finish
]

/** The tool-result parts of the prompt a request carried. */
const toolResultsOf = (request: LanguageModel.ProviderOptions) =>
  request.prompt.content.flatMap((message) =>
    message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : []
  )

const readTool: McpSchema.Tool = {
  name: "fs.read",
  title: "Read a file",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { readOnlyHint: true, destructiveHint: false }
}
const deleteTool: McpSchema.Tool = {
  name: "fs.delete",
  description: "Deletes a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
}
const readResult: McpSchema.CallToolResult = {
  content: [{ type: "text", text: "contents of /a" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }]
}

const server = TestServer.layer({
  capabilities: { tools: {} },
  handlers: {
    "tools/list": () => Effect.succeed({ tools: [readTool, deleteTool] }),
    "tools/call": ({ params }) =>
      Effect.succeed(
        params.name === "fs.read"
          ? readResult
          : { content: [{ type: "text", text: `no such file ${JSON.stringify(params.arguments)}` }], isError: true }
      )
  }
})
const ClientLive = McpClient.layer({ clientInfo: { name: "toolkit-test", version: "1.0.0" } }).pipe(
  Layer.provideMerge(server)
)

const toolCalls = Effect.map(
  Effect.flatMap(TestServer.TestServer, (s) => s.received),
  (messages) => messages.flatMap((m) => "method" in m && m.method === "tools/call" ? [m.params] : [])
)

layer(ClientLive)("McpToolkit over a client", (it) => {
  it.effect("the model calls a tool, the server gets the call, the result returns in the provider's shape", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools
      const requests: Array<LanguageModel.ProviderOptions> = []
      const model = scriptedModel([
        () => callOf("toolu_1", "fs_read", { path: "/a" }),
        () => [{ type: "text", text: "done" }]
      ], requests)
      const toolkit = McpToolkit.withHandler(McpToolkit.fromClient(client, "files"), { output: "anthropic" })
      const prompt = Prompt.make("read /a")
      const first = yield* LanguageModel.generateText({ prompt, toolkit }).pipe(Effect.provide(model))

      // what the provider was given: the tools, provider-safe names, MCP schemas and annotations
      const offered = requests[0].tools
      expect(offered.map((t) => t.name)).toEqual(["fs_read", "fs_delete"])
      expect(Tool.getJsonSchema(offered[0] as Tool.Any as McpToolkit.McpTool)).toEqual(readTool.inputSchema)
      expect(Tool.getDescription(offered[0] as Tool.Any as McpToolkit.McpTool)).toBe("Reads a file")
      expect(offered[0].annotations.unsafeMap.get(Tool.Readonly.key)).toBe(true)
      expect(offered[0].annotations.unsafeMap.get(Tool.Title.key)).toBe("Read a file")

      // the handler reached the server, under the tool's MCP name
      expect(yield* toolCalls).toEqual([expect.objectContaining({ name: "fs.read", arguments: { path: "/a" } })])
      expect(first.toolResults).toHaveLength(1)
      expect(first.toolResults[0]).toMatchObject({ id: "toolu_1", name: "fs_read", isFailure: false })
      expect(first.toolResults[0].result).toEqual(readResult)

      // the next request carries the result as Anthropic content blocks
      yield* LanguageModel.generateText({
        prompt: Prompt.merge(prompt, Prompt.fromResponseParts(first.content)),
        toolkit
      })
        .pipe(Effect.provide(model))
      const [returned] = toolResultsOf(requests[1])
      expect(returned).toMatchObject({ id: "toolu_1", name: "fs_read", isFailure: false })
      expect(returned.result).toEqual(ToolFormat.anthropicContent(readResult))
      expect(returned.result).toEqual([
        { type: "text", text: "contents of /a" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
      ])
    }))

  it.effect("an isError result is a tool failure for the model, in the chosen shape", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools
      const requests: Array<LanguageModel.ProviderOptions> = []
      const model = scriptedModel([() => callOf("call_2", "fs_delete", { path: "/b" })], requests)
      const toolkit = McpToolkit.withHandler(McpToolkit.fromClient(client), { output: "gemini" })
      const response = yield* LanguageModel.generateText({ prompt: "delete /b", toolkit }).pipe(Effect.provide(model))
      expect(response.toolResults[0]).toMatchObject({ name: "fs_delete", isFailure: true })
      expect(response.toolResults[0].encodedResult).toEqual({ error: "no such file {\"path\":\"/b\"}" })
    }))
})

// the approval policy and the call log in the client's context: calls the model makes go through both
const GuardedClient = McpClient.layer({ clientInfo: { name: "toolkit-test", version: "1.0.0" }, server: "files" }).pipe(
  Layer.provideMerge(server),
  Layer.provideMerge(Layer.mergeAll(
    ApprovalPolicy.layerMemory({ mode: "always-ask" }),
    Approver.layer((request) =>
      Effect.succeed(
        request.tool.name === "fs.delete" ? ApprovalDecision.deny("the user said no") : ApprovalDecision.approveOnce
      )
    ),
    ToolCallLog.layerMemory()
  ))
)

layer(GuardedClient)("McpToolkit through the approval policy and the call log", (it) => {
  it.effect("a denied call is a failure for the model, never reaches the server, and is logged", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools
      const requests: Array<LanguageModel.ProviderOptions> = []
      const model = scriptedModel([() => [
        { type: "tool-call", id: "call_1", name: "fs_read", params: { path: "/a" } },
        { type: "tool-call", id: "call_2", name: "fs_delete", params: { path: "/etc" } },
        finish
      ]], requests)
      const response = yield* LanguageModel.generateText({
        prompt: "read /a, then delete /etc",
        toolkit: McpToolkit.withHandler(McpToolkit.fromClient(client, "files"))
      }).pipe(Effect.provide(model))

      const [read, denied] = response.toolResults
      expect(read).toMatchObject({ name: "fs_read", isFailure: false })
      expect(denied).toMatchObject({ name: "fs_delete", isFailure: true })
      expect(denied.encodedResult).toBe("Tool error: tool call fs.delete was not approved: the user said no")
      expect((yield* toolCalls).map((params) => params?.name)).toEqual(["fs.read"])
      const log = yield* Effect.flatMap(ToolCallLog.ToolCallLog, (l) => l.records.get)
      expect(log.map((r) => [r.tool, r.status]).sort()).toEqual([["fs.delete", "Denied"], ["fs.read", "Completed"]])
    }))
})

describe("McpToolkit sources", () => {
  it.effect("withHandler builds from the tools as they are at each request", () =>
    Effect.gen(function*() {
      const tools = yield* SubscriptionRef.make<ReadonlyArray<McpToolkit.SourceTool>>([
        { name: "files__read", server: "files", tool: readTool }
      ])
      const source: McpToolkit.Source<never> = {
        tools,
        callTool: (name) => Effect.succeed({ content: [{ type: "text", text: `called ${name}` }] })
      }
      const toolkit = McpToolkit.withHandler(source)
      expect(Object.keys((yield* toolkit).tools)).toEqual(["files__read"])
      yield* SubscriptionRef.set(tools, [
        { name: "files__read", server: "files", tool: readTool },
        { name: "files__delete", server: "files", tool: deleteTool }
      ])
      const latest = yield* toolkit
      expect(Object.keys(latest.tools)).toEqual(["files__read", "files__delete"])
      const handled = yield* latest.handle("files__delete", { path: "/x" })
      expect(handled.encodedResult).toBe("called files__delete")
    }))
})

layer(everything, { timeout: 60_000, excludeTestServices: true })("McpToolkit over server-everything", (it) => {
  it.effect("the model's get-sum call runs in the real server", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* toolsWith(["get-sum"])
      const requests: Array<LanguageModel.ProviderOptions> = []
      const model = scriptedModel([() => callOf("call_1", "get-sum", { a: 2, b: 40 })], requests)
      const response = yield* LanguageModel.generateText({
        prompt: "2 + 40?",
        toolkit: McpToolkit.withHandler(McpToolkit.fromClient(client), { output: "openai-responses" })
      }).pipe(Effect.provide(model))
      expect(response.toolResults[0]).toMatchObject({ name: "get-sum", isFailure: false })
      expect(response.toolResults[0].encodedResult).toBe("The sum of 2 and 40 is 42.")
    }))
})
