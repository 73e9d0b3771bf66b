// The ToolFormat outputs are assignable, without casts, to the types of the providers' own SDKs
// (`openai`, `@anthropic-ai/sdk`, `@google/genai`: pinned root dev dependencies). `tsc` checks the
// assignments below; the test runs them on awkward tools and results.
import type Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import type * as Genai from "@google/genai"
import type { McpSchema } from "@mcp-effect/core"
import type OpenAI from "openai"
import * as ToolFormat from "../src/ToolFormat.js"

const tools: ReadonlyArray<McpSchema.Tool> = [
  { name: "no-args", inputSchema: { type: "object" } },
  {
    name: "9lives",
    description: "starts with a digit",
    inputSchema: {
      type: "object",
      properties: { mode: { enum: ["a", 1, null] }, opt: { type: "string" } },
      required: ["mode"]
    }
  },
  { name: "union", inputSchema: { anyOf: [{ type: "object", properties: { a: { type: "string" } } }] } }
]

const result: McpSchema.CallToolResult = {
  content: [
    { type: "text", text: "hello" },
    { type: "image", data: "aGk=", mimeType: "image/png" },
    { type: "image", data: "aGk=", mimeType: "image/tiff" },
    { type: "audio", data: "aGk=", mimeType: "audio/wav" }
  ],
  isError: true
}

describe("provider SDK types", () => {
  it("tool declarations", () => {
    for (const tool of tools) {
      const chat: OpenAI.Chat.Completions.ChatCompletionTool = ToolFormat.openAiChatTool(tool)
      const responses: OpenAI.Responses.FunctionTool = ToolFormat.openAiResponsesTool(tool)
      const anthropic: Anthropic.Messages.Tool = ToolFormat.anthropicTool(tool)
      const gemini: Genai.FunctionDeclaration = ToolFormat.geminiJsonFunctionDeclaration(tool)
      const geminiTool: Genai.Tool = { functionDeclarations: [ToolFormat.geminiJsonFunctionDeclaration(tool)] }
      expect([
        chat.type,
        responses.type,
        anthropic.input_schema.type,
        gemini.name,
        geminiTool.functionDeclarations?.length
      ])
        .toEqual(["function", "function", "object", ToolFormat.geminiName(ToolFormat.sanitizeName(tool.name)), 1])
    }
  })

  it("tool results", () => {
    const chat: OpenAI.Chat.Completions.ChatCompletionToolMessageParam = ToolFormat.openAiChatResult("call_1", result)
    const responses: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = ToolFormat.openAiResponsesResult(
      "call_1",
      result
    )
    const anthropic: Anthropic.Messages.ToolResultBlockParam = ToolFormat.anthropicResult("call_1", result)
    const gemini: ReadonlyArray<Genai.Part> = ToolFormat.geminiResult("get", result, { id: "call_1" })
    expect([chat.role, responses.type, anthropic.is_error, gemini.length]).toEqual([
      "tool",
      "function_call_output",
      true,
      4
    ])
  })
})

describe("provider rules", () => {
  it("Gemini: a mixed-type enum keeps its string values, the others described", () => {
    const schema = ToolFormat.geminiSchema({ enum: ["a", "b", 1, true] })
    expect(schema).toMatchObject({ type: "STRING", enum: ["a", "b"] })
    expect(schema.description).toContain("also one of: 1, true")
  })

  it("Gemini: names start with a letter or an underscore", () => {
    expect(ToolFormat.geminiFunctionDeclaration(tools[1]).name).toBe("_9lives")
    expect(ToolFormat.geminiJsonFunctionDeclaration(tools[1]).name).toBe("_9lives")
    expect(ToolFormat.geminiName("ok-name")).toBe("ok-name")
  })

  it("Gemini: a property whose name breaks Gemini's rule is declared under a name it takes, still required", () => {
    const schema = ToolFormat.geminiSchema({
      type: "object",
      properties: { ok_name: { type: "string" }, "bad-name": { type: "string" }, "9th": { type: "number" } },
      required: ["ok_name", "bad-name"]
    })
    expect(Object.keys(schema.properties ?? {})).toEqual(["ok_name", "bad_name", "_9th"])
    expect(schema.required).toEqual(["ok_name", "bad_name"])
  })

  it("Gemini: an object without properties has no properties key; a tool without arguments no parameters", () => {
    expect(ToolFormat.geminiSchema({ type: "object", properties: {} })).toEqual({ type: "OBJECT" })
    expect(ToolFormat.geminiFunctionDeclaration(tools[0])).toEqual({ name: "no-args" })
    expect(ToolFormat.geminiJsonFunctionDeclaration(tools[0])).toEqual({ name: "no-args" })
  })

  it("OpenAI: strict mode only where every property schema has a type", () => {
    const typed = { type: "object", properties: { a: { type: "string" } }, required: ["a"] }
    expect(ToolFormat.openAiStrictSchema(typed)).toBeDefined()
    for (const untyped of [{}, { description: "anything" }, { enum: ["x"] }]) {
      const schema = { type: "object" as const, properties: { a: untyped }, required: ["a"] }
      expect(ToolFormat.openAiStrictSchema(schema)).toBeUndefined()
      expect(ToolFormat.openAiResponsesTool({ name: "t", inputSchema: schema }).strict).toBe(false)
    }
  })
})
