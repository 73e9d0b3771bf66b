/**
 * Provider formats and the @effect/ai toolkit, against server-everything:
 *
 *   npx tsx --conditions=@mcp-effect/source examples/formats.ts
 *
 * Prints server-everything's tools as OpenAI, Anthropic and Gemini declare
 * them, and one tool result as each provider takes it back. The README's
 * "Provider formats" section mirrors this file.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import { McpClient } from "@mcp-effect/core"
import { ToolFormat } from "@mcp-effect/hub"
import * as McpToolkit from "@mcp-effect/hub/McpToolkit"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"

// --- tools and results, by hand -------------------------------------------------

export const declareTools = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools

  // OpenAI chat completions: `tools` of a request (strict only where the schema allows it)
  const openAiChat = tools.map((tool) => ToolFormat.openAiChatTool(tool))
  // OpenAI Responses: function tools
  const openAiResponses = tools.map((tool) => ToolFormat.openAiResponsesTool(tool))
  // Anthropic Messages: `tools`
  const anthropic = tools.map(ToolFormat.anthropicTool)
  // Gemini: one tool with all function declarations (schemas in Gemini's OpenAPI subset)
  const gemini = { functionDeclarations: tools.map(ToolFormat.geminiFunctionDeclaration) }

  return { openAiChat, openAiResponses, anthropic, gemini }
})

export const answerCall = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  // the model asked for `get-sum` with call id "call_1"
  const result = yield* client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } })
  return {
    openAiChat: ToolFormat.openAiChatResult("call_1", result), // { role: "tool", tool_call_id, content }
    openAiResponses: ToolFormat.openAiResponsesResult("call_1", result), // { type: "function_call_output", ... }
    anthropic: ToolFormat.anthropicResult("call_1", result), // { type: "tool_result", ..., is_error? }
    gemini: ToolFormat.geminiResult("get-sum", result, { id: "call_1" }) // [{ functionResponse }, ...inlineData]
  }
})

// --- the same tools as an @effect/ai Toolkit ----------------------------------------

/** One generation with the client's tools; the model's tool calls run through `callTool`. */
export const ask = (question: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const response = yield* LanguageModel.generateText({
      prompt: question,
      toolkit: McpToolkit.withHandler(McpToolkit.fromClient(client, "everything"), { output: "openai-chat" })
    })
    return response.text
  })

// --- run ------------------------------------------------------------------------

const ClientLive = McpClient.layer({ clientInfo: { name: "formats-example", version: "1.0.0" } }).pipe(
  Layer.provide(NodeStdioTransport.layer({
    command: process.execPath,
    args: [createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"]
  }))
)

const main = Effect.gen(function*() {
  const declared = yield* declareTools
  yield* Console.log(JSON.stringify(declared.openAiChat.slice(0, 2), null, 2))
  yield* Console.log(JSON.stringify(declared.gemini.functionDeclarations.slice(0, 2), null, 2))
  yield* Console.log(JSON.stringify(yield* answerCall, null, 2))
})

Effect.runPromise(main.pipe(Effect.provide(ClientLive))).catch((error) => {
  console.error(error)
  process.exit(1)
})
