import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as McpSchema from "../src/McpSchema.js"

const preserve = { onExcessProperty: "preserve" } as const

/** Decodes `input`, encodes the result back and checks it equals `input`. */
const roundTrip = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Effect.gen(function*() {
    const decoded = yield* Schema.decodeUnknown(schema, preserve)(input)
    const encoded = yield* Schema.encode(schema, preserve)(decoded)
    expect(encoded).toStrictEqual(input)
    return decoded
  })

/** Decoding `input` must fail with a ParseError. */
const rejects = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(Schema.decodeUnknown(schema, preserve)(input))
    expect(ParseResult.isParseError(error)).toBe(true)
  })

const weatherInputSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    location: { type: "string", description: "City name or zip code" },
    units: { $ref: "#/$defs/units" }
  },
  required: ["location"],
  additionalProperties: false,
  $defs: { units: { enum: ["metric", "imperial"], default: "metric" } }
}

const weatherTool = {
  name: "get_weather",
  title: "Weather Information Provider",
  description: "Get current weather information for a location",
  icons: [{ src: "https://example.com/weather.png", mimeType: "image/png", sizes: ["48x48"], theme: "light" }],
  inputSchema: weatherInputSchema,
  outputSchema: {
    type: "object",
    properties: { temperature: { type: "number" }, conditions: { type: "string" } },
    required: ["temperature", "conditions"]
  },
  annotations: { title: "Weather", readOnlyHint: true, openWorldHint: true, idempotentHint: true },
  execution: { taskSupport: "optional" },
  _meta: { "example.com/owner": "weather-team" }
}

const task = {
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  status: "working",
  statusMessage: "The operation is now in progress.",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:40:00Z",
  ttl: 60000,
  pollInterval: 5000
}

describe("McpSchema", () => {
  describe("constants", () => {
    it("lists the negotiable revisions, newest first", () => {
      expect(McpSchema.LATEST_PROTOCOL_VERSION).toBe("2025-11-25")
      expect(McpSchema.SUPPORTED_PROTOCOL_VERSIONS).toStrictEqual([
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05"
      ])
    })

    it("names every method", () => {
      expect(McpSchema.Method.ToolsCall).toBe("tools/call")
      expect(McpSchema.Method.TasksResult).toBe("tasks/result")
      expect(McpSchema.Method.NotificationsTasksStatus).toBe("notifications/tasks/status")
      expect(McpSchema.Method.NotificationsElicitationComplete).toBe("notifications/elicitation/complete")
      expect(new Set(Object.values(McpSchema.Method)).size).toBe(Object.keys(McpSchema.Method).length)
    })
  })

  describe("round trips", () => {
    it.effect("initialize (2025-11-25)", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.InitializeRequestParams, {
          protocolVersion: "2025-11-25",
          capabilities: {
            roots: { listChanged: true },
            sampling: { context: {}, tools: {} },
            elicitation: { form: {}, url: {} },
            tasks: {
              list: {},
              cancel: {},
              requests: { sampling: { createMessage: {} }, elicitation: { create: {} } }
            },
            experimental: { "example.com/feature": { level: 2 } }
          },
          clientInfo: {
            name: "ExampleClient",
            title: "Example Client Display Name",
            version: "1.0.0",
            description: "An example MCP client application",
            icons: [{ src: "https://example.com/icon.svg", mimeType: "image/svg+xml", sizes: ["any"] }],
            websiteUrl: "https://example.com"
          },
          _meta: { progressToken: "init-1" }
        })
        const result = yield* roundTrip(McpSchema.InitializeResult, {
          protocolVersion: "2025-11-25",
          capabilities: {
            logging: {},
            completions: {},
            prompts: { listChanged: true },
            resources: { subscribe: true, listChanged: true },
            tools: { listChanged: true },
            tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }
          },
          serverInfo: { name: "ExampleServer", title: "Example Server", version: "1.0.0" },
          instructions: "Optional instructions for the client"
        })
        expect(result.capabilities.tasks?.requests?.tools?.call).toStrictEqual({})
      }))

    it.effect("initialize result from a 2024-11-05 server", () =>
      Effect.gen(function*() {
        const result = yield* roundTrip(McpSchema.InitializeResult, {
          protocolVersion: "2024-11-05",
          capabilities: { logging: {}, prompts: { listChanged: true }, resources: { subscribe: true } },
          serverInfo: { name: "legacy", version: "0.1.0" }
        })
        expect(result.serverInfo.title).toBeUndefined()
      }))

    it.effect("tools", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.PaginatedRequestParams, { cursor: "page-2" })
        yield* roundTrip(McpSchema.ListToolsResult, {
          tools: [weatherTool, { name: "echo", inputSchema: { type: "object" } }],
          nextCursor: "next-page-cursor"
        })
        yield* roundTrip(McpSchema.CallToolRequestParams, {
          name: "get_weather",
          arguments: { location: "New York" },
          task: { ttl: 60000 },
          _meta: { progressToken: 7, "example.com/trace": "abc" }
        })
        yield* roundTrip(McpSchema.CallToolResult, {
          content: [
            {
              type: "text",
              text: "Current weather in New York: 72°F",
              annotations: { audience: ["user"], priority: 0.9 }
            },
            { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
            { type: "audio", data: "UklGRiQ=", mimeType: "audio/wav" },
            {
              type: "resource_link",
              uri: "file:///project/src/main.rs",
              name: "main.rs",
              description: "Primary application entry point",
              mimeType: "text/x-rust",
              size: 1024,
              annotations: { lastModified: "2025-01-12T15:00:58Z" }
            },
            {
              type: "resource",
              resource: { uri: "file:///project/README.md", mimeType: "text/markdown", text: "# Project" }
            }
          ],
          structuredContent: { temperature: 22.5, conditions: "Partly cloudy" },
          isError: false,
          _meta: { "example.com/elapsed": 12 }
        })
      }))

    it.effect("resources", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.ListResourcesResult, {
          resources: [{
            uri: "file:///project/src/main.rs",
            name: "main.rs",
            title: "Rust Software Application Main File",
            description: "Primary application entry point",
            mimeType: "text/x-rust",
            icons: [{ src: "data:image/png;base64,iVBORw0KGgo=", theme: "dark" }],
            annotations: { audience: ["user", "assistant"], priority: 0.8 },
            size: 2048
          }],
          nextCursor: "c2"
        })
        yield* roundTrip(McpSchema.ListResourceTemplatesResult, {
          resourceTemplates: [{
            uriTemplate: "file:///{path}",
            name: "Project Files",
            mimeType: "application/octet-stream"
          }]
        })
        yield* roundTrip(McpSchema.ReadResourceRequestParams, { uri: "file:///project/src/main.rs" })
        yield* roundTrip(McpSchema.ReadResourceResult, {
          contents: [
            { uri: "file:///project/src/main.rs", mimeType: "text/x-rust", text: "fn main() {}" },
            { uri: "file:///project/logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=", _meta: { etag: "1" } }
          ]
        })
        yield* roundTrip(McpSchema.SubscribeRequestParams, { uri: "file:///project/src/main.rs" })
        yield* roundTrip(McpSchema.UnsubscribeRequestParams, { uri: "file:///project/src/main.rs" })
        yield* roundTrip(McpSchema.ResourceUpdatedNotificationParams, { uri: "file:///project/src/main.rs" })
      }))

    it.effect("prompts, completion and logging", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.ListPromptsResult, {
          prompts: [{
            name: "code_review",
            title: "Request Code Review",
            description: "Asks the LLM to analyze code quality and suggest improvements",
            arguments: [{ name: "code", description: "The code to review", required: true }],
            icons: [{ src: "https://example.com/review.svg" }]
          }]
        })
        yield* roundTrip(McpSchema.GetPromptRequestParams, {
          name: "code_review",
          arguments: { code: "def hello(): pass" }
        })
        yield* roundTrip(McpSchema.GetPromptResult, {
          description: "Code review prompt",
          messages: [
            { role: "user", content: { type: "text", text: "Please review this Python code" } },
            {
              role: "assistant",
              content: { type: "resource", resource: { uri: "resource://example", mimeType: "text/plain", text: "x" } }
            }
          ]
        })
        yield* roundTrip(McpSchema.CompleteRequestParams, {
          ref: { type: "ref/prompt", name: "code_review" },
          argument: { name: "framework", value: "fla" },
          context: { arguments: { language: "python" } }
        })
        yield* roundTrip(McpSchema.CompleteRequestParams, {
          ref: { type: "ref/resource", uri: "file:///{path}" },
          argument: { name: "path", value: "src/" }
        })
        yield* roundTrip(McpSchema.CompleteResult, { completion: { values: ["flask"], total: 1, hasMore: false } })
        yield* roundTrip(McpSchema.SetLevelRequestParams, { level: "info" })
        yield* roundTrip(McpSchema.LoggingMessageNotificationParams, {
          level: "error",
          logger: "database",
          data: { error: "Connection failed", details: { host: "localhost", port: 5432 } }
        })
      }))

    it.effect("sampling and roots", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.CreateMessageRequestParams, {
          messages: [
            { role: "user", content: { type: "text", text: "What's the weather like in Paris?" } },
            {
              role: "assistant",
              content: [{ type: "tool_use", id: "call_abc123", name: "get_weather", input: { city: "Paris" } }]
            },
            {
              role: "user",
              content: [{
                type: "tool_result",
                toolUseId: "call_abc123",
                content: [{ type: "text", text: "18°C, partly cloudy" }],
                structuredContent: { temperature: 18 },
                isError: false
              }]
            }
          ],
          modelPreferences: {
            hints: [{ name: "claude-3-sonnet" }],
            intelligencePriority: 0.8,
            speedPriority: 0.5,
            costPriority: 0.3
          },
          systemPrompt: "You are a helpful assistant.",
          includeContext: "none",
          temperature: 0.2,
          maxTokens: 1000,
          stopSequences: ["\n\n"],
          metadata: { provider: { cache: true } },
          tools: [weatherTool],
          toolChoice: { mode: "auto" },
          task: { ttl: 30000 }
        })
        yield* roundTrip(McpSchema.CreateMessageResult, {
          role: "assistant",
          content: { type: "text", text: "The capital of France is Paris." },
          model: "claude-3-sonnet-20240307",
          stopReason: "endTurn"
        })
        yield* roundTrip(McpSchema.CreateMessageResult, {
          role: "assistant",
          content: [
            { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "London" } }
          ],
          model: "claude-3-sonnet-20240307",
          stopReason: "toolUse"
        })
        yield* roundTrip(McpSchema.ListRootsResult, {
          roots: [{ uri: "file:///home/user/projects/myproject", name: "My Project", _meta: { vcs: "git" } }]
        })
      }))

    it.effect("elicitation", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.ElicitRequestParams, {
          mode: "form",
          message: "Please provide your contact information",
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", title: "Full name", minLength: 1, maxLength: 100, default: "Ada" },
              email: { type: "string", format: "email", description: "Your email address" },
              age: { type: "integer", minimum: 18, maximum: 120, default: 30 },
              score: { type: "number", default: 0.5 },
              subscribe: { type: "boolean", default: true },
              color: { type: "string", enum: ["red", "green"], default: "red" },
              size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
              legacy: { type: "string", enum: ["a", "b"], enumNames: ["Option A", "Option B"] },
              tags: { type: "array", minItems: 1, items: { type: "string", enum: ["x", "y"] }, default: ["x"] },
              langs: {
                type: "array",
                maxItems: 2,
                items: { anyOf: [{ const: "ts", title: "TypeScript" }, { const: "rs", title: "Rust" }] },
                default: ["ts"]
              }
            },
            required: ["name", "email"]
          }
        })
        // A 2025-06-18 request has no `mode`.
        const legacy = yield* roundTrip(McpSchema.ElicitRequestParams, {
          message: "Your GitHub username?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
        })
        expect("requestedSchema" in legacy).toBe(true)
        const url = yield* roundTrip(McpSchema.ElicitRequestParams, {
          mode: "url",
          elicitationId: "550e8400-e29b-41d4-a716-446655440000",
          url: "https://mcp.example.com/ui/set_api_key",
          message: "Please provide your API key to continue."
        })
        expect(url.mode).toBe("url")
        yield* roundTrip(McpSchema.ElicitResult, {
          action: "accept",
          content: { name: "Ada", age: 36, subscribe: false, tags: ["x", "y"] }
        })
        yield* roundTrip(McpSchema.ElicitResult, { action: "decline" })
        yield* roundTrip(McpSchema.ElicitationCompleteNotificationParams, {
          elicitationId: "550e8400-e29b-41d4-a716-446655440000"
        })
        yield* roundTrip(McpSchema.UrlElicitationRequiredErrorData, {
          elicitations: [{
            mode: "url",
            elicitationId: "e-1",
            url: "https://mcp.example.com/connect?elicitationId=e-1",
            message: "Authorization is required to access your Example Co files."
          }]
        })
      }))

    it.effect("tasks", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.CreateTaskResult, { task })
        yield* roundTrip(McpSchema.GetTaskRequestParams, { taskId: task.taskId })
        yield* roundTrip(McpSchema.GetTaskPayloadRequestParams, { taskId: task.taskId })
        yield* roundTrip(McpSchema.CancelTaskRequestParams, { taskId: task.taskId })
        yield* roundTrip(McpSchema.GetTaskResult, { ...task, status: "input_required" })
        yield* roundTrip(McpSchema.CancelTaskResult, { ...task, status: "cancelled", ttl: null })
        yield* roundTrip(McpSchema.ListTasksResult, {
          tasks: [task, { ...task, status: "completed" }],
          nextCursor: "t2"
        })
        yield* roundTrip(McpSchema.TaskStatusNotificationParams, {
          ...task,
          status: "failed",
          statusMessage: "Tool execution failed: API rate limit exceeded",
          _meta: { [McpSchema.RELATED_TASK_META_KEY]: { taskId: task.taskId } }
        })
        const payload = yield* roundTrip(McpSchema.GetTaskPayloadResult, {
          content: [{ type: "text", text: "done" }],
          isError: false,
          _meta: { [McpSchema.RELATED_TASK_META_KEY]: { taskId: task.taskId } }
        })
        yield* roundTrip(McpSchema.CallToolResult, payload)
        yield* roundTrip(McpSchema.RelatedTaskMetadata, { taskId: task.taskId })
      }))

    it.effect("progress, cancellation, empty results", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.ProgressNotificationParams, {
          progressToken: "abc123",
          progress: 50,
          total: 100,
          message: "Reticulating splines..."
        })
        yield* roundTrip(McpSchema.CancelledNotificationParams, {
          requestId: "123",
          reason: "User requested cancellation"
        })
        yield* roundTrip(McpSchema.CancelledNotificationParams, { reason: "no id since 2025-11-25" })
        yield* roundTrip(McpSchema.RequestParams, {})
        yield* roundTrip(McpSchema.NotificationParams, { _meta: { a: 1 } })
        yield* roundTrip(McpSchema.EmptyResult, {})
      }))
  })

  describe("compatibility", () => {
    it.effect("keeps unknown fields at every level with onExcessProperty: preserve", () =>
      Effect.gen(function*() {
        const input = {
          tools: [{
            ...weatherTool,
            futureField: { x: 1 },
            annotations: { ...weatherTool.annotations, futureHint: true }
          }],
          futureResultField: "kept"
        }
        const decoded = yield* roundTrip(McpSchema.ListToolsResult, input)
        expect(decoded).toStrictEqual(input)
        const capabilities = yield* roundTrip(McpSchema.ServerCapabilities, {
          tools: { listChanged: true, streaming: true },
          "example.com/extension": { version: 2 }
        })
        expect(capabilities).toHaveProperty(["example.com/extension", "version"], 2)
        const block = yield* roundTrip(McpSchema.ContentBlock, { type: "text", text: "hi", futureField: [1, 2] })
        expect(block).toHaveProperty("futureField", [1, 2])
      }))

    it("keeps tool JSON Schemas byte-for-byte", () => {
      const tool = Schema.decodeUnknownSync(McpSchema.Tool, preserve)(weatherTool)
      expect(JSON.stringify(tool.inputSchema)).toBe(JSON.stringify(weatherInputSchema))
      expect(JSON.stringify(tool.outputSchema)).toBe(JSON.stringify(weatherTool.outputSchema))
      expect(tool.inputSchema).toBe(weatherInputSchema)
      // Byte-for-byte even with the default options (no excess-property handling involved).
      const plain = Schema.decodeUnknownSync(McpSchema.Tool)(weatherTool)
      expect(JSON.stringify(plain.inputSchema)).toBe(JSON.stringify(weatherInputSchema))
      const encoded = Schema.encodeSync(McpSchema.Tool, preserve)(tool)
      expect(JSON.stringify(encoded.inputSchema)).toBe(JSON.stringify(weatherInputSchema))
    })

    it("keeps even a JSON-parsed own __proto__ key of a tool schema", () => {
      const text = `{"name":"t","inputSchema":{"__proto__":{"x":1},"type":"object","properties":{}}}`
      const tool = Schema.decodeUnknownSync(McpSchema.Tool, preserve)(JSON.parse(text))
      expect(JSON.stringify(Schema.encodeSync(McpSchema.Tool, preserve)(tool))).toBe(text)
    })

    it("passes _meta through untouched", () => {
      const text = `{"progressToken":"p1","__proto__":{"x":1},"example.com/k":[1]}`
      const meta = JSON.parse(text)
      const params = Schema.decodeUnknownSync(McpSchema.CallToolRequestParams, preserve)({ name: "t", _meta: meta })
      expect(params._meta).toBe(meta)
      expect(params._meta?.progressToken).toBe("p1")
    })

    it("keeps an elicitation requestedSchema byte-for-byte", () => {
      const requestedSchema = {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        properties: { email: { format: "email", type: "string" } },
        type: "object",
        required: ["email"]
      }
      const params = Schema.decodeUnknownSync(McpSchema.ElicitRequestFormParams, preserve)({
        message: "m",
        requestedSchema
      })
      expect(JSON.stringify(params.requestedSchema)).toBe(JSON.stringify(requestedSchema))
    })

    it("keeps enum fields when decoding without preserve", () => {
      const decode = Schema.decodeUnknownSync(McpSchema.PrimitiveSchemaDefinition)
      expect(decode({ type: "string", enum: ["a"], enumNames: ["A"] })).toStrictEqual({
        type: "string",
        enum: ["a"],
        enumNames: ["A"]
      })
      expect(decode({ type: "string", oneOf: [{ const: "a", title: "A" }] })).toStrictEqual({
        type: "string",
        oneOf: [{ const: "a", title: "A" }]
      })
    })

    it.effect("a tool result without content decodes to an empty content list", () =>
      Effect.gen(function*() {
        const result = yield* Schema.decodeUnknown(McpSchema.CallToolResult, preserve)({
          structuredContent: { ok: true }
        })
        expect(result.content).toStrictEqual([])
      }))

    it.effect("older-era shapes decode", () =>
      Effect.gen(function*() {
        yield* roundTrip(McpSchema.ListToolsResult, {
          tools: [{
            name: "add",
            description: "Adds",
            inputSchema: { type: "object", properties: { a: { type: "number" } } }
          }]
        })
        yield* roundTrip(McpSchema.ListResourcesResult, { resources: [{ uri: "file:///a", name: "a" }] })
        yield* roundTrip(McpSchema.ListPromptsResult, { prompts: [{ name: "p" }] })
        yield* roundTrip(McpSchema.ClientCapabilities, { sampling: {}, roots: { listChanged: true } })
        yield* roundTrip(McpSchema.CancelledNotificationParams, { requestId: 3 })
      }))
  })

  describe("invalid input fails with a ParseError", () => {
    it.effect("tool without inputSchema", () => rejects(McpSchema.Tool, { name: "x" }))
    it.effect("tool whose inputSchema is not an object schema", () =>
      rejects(McpSchema.Tool, { name: "x", inputSchema: { type: "array" } }))
    it.effect("tool whose inputSchema is an array", () => rejects(McpSchema.Tool, { name: "x", inputSchema: [] }))
    it.effect("unknown content type", () =>
      rejects(McpSchema.CallToolResult, { content: [{ type: "video", data: "", mimeType: "video/mp4" }] }))
    it.effect("image without data", () => rejects(McpSchema.ContentBlock, { type: "image", mimeType: "image/png" }))
    it.effect("unknown task status", () => rejects(McpSchema.Task, { ...task, status: "running" }))
    it.effect("task without ttl", () => {
      const { ttl: _ttl, ...withoutTtl } = task
      return rejects(McpSchema.Task, withoutTtl)
    })
    it.effect("progress token that is neither string nor number", () =>
      rejects(McpSchema.CallToolRequestParams, { name: "t", _meta: { progressToken: { id: 1 } } }))
    it.effect("unknown logging level", () => rejects(McpSchema.SetLevelRequestParams, { level: "verbose" }))
    it.effect("elicitation form with a nested object field", () =>
      rejects(McpSchema.ElicitRequestParams, {
        message: "m",
        requestedSchema: { type: "object", properties: { address: { type: "object", properties: {} } } }
      }))
    it.effect("url elicitation without url", () =>
      rejects(McpSchema.ElicitRequestParams, { mode: "url", message: "m", elicitationId: "e" }))
    it.effect("unknown elicitation action", () => rejects(McpSchema.ElicitResult, { action: "maybe" }))
    it.effect("initialize result without serverInfo", () =>
      rejects(McpSchema.InitializeResult, { protocolVersion: "2025-11-25", capabilities: {} }))
  })

  describe("properties", () => {
    const decodeOfEncode = <A, I>(schema: Schema.Schema<A, I>) => {
      const encode = Schema.encodeSync(schema, preserve)
      const decode = Schema.decodeUnknownSync(schema, preserve)
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(schema), (value) => {
          expect(decode(encode(value))).toStrictEqual(value)
        }),
        { numRuns: 200, seed: 20261122 }
      )
    }

    it("ContentBlock", () => decodeOfEncode(McpSchema.ContentBlock))
    it("Tool", () => decodeOfEncode(McpSchema.Tool))
    it("Task", () => decodeOfEncode(McpSchema.Task))
    it("CallToolResult", () => decodeOfEncode(McpSchema.CallToolResult))
    it("SamplingMessage", () => decodeOfEncode(McpSchema.SamplingMessage))
    it("CallToolRequestParams", () => decodeOfEncode(McpSchema.CallToolRequestParams))
    it("ElicitRequestURLParams", () => decodeOfEncode(McpSchema.ElicitRequestURLParams))
  })
})
