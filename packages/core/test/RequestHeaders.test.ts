import { describe, expect, it } from "@effect/vitest"
import { McpClient, McpError, type McpSchema, RequestHeaders } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { clientLayer } from "./utils.js"

const prop = (type: unknown, header: unknown) => ({ type, "x-mcp-header": header })
const object = (properties: Record<string, unknown>) => ({ type: "object", properties })

const reasonOf = (schema: unknown): string | undefined => {
  const declared = RequestHeaders.declarations(schema)
  return declared._tag === "Invalid" ? declared.reason : undefined
}

describe("RequestHeaders.encodeValue", () => {
  // the examples of the revision's value encoding table
  it.each([
    ["us-west1", "us-west1"],
    ["us west 1", "us west 1"],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
    ["\tindented", "=?base64?CWluZGVudGVk?="],
    ["", ""]
  ])("%j -> %s", (value, encoded) => {
    expect(RequestHeaders.encodeValue(value)).toBe(encoded)
  })
})

describe("RequestHeaders.standardHeaders", () => {
  it("names the method, and the tool, prompt or resource", () => {
    expect(RequestHeaders.standardHeaders("tools/list", {})).toEqual({ "mcp-method": "tools/list" })
    expect(RequestHeaders.standardHeaders("tools/call", { name: "my-hyphenated-tool" })).toEqual({
      "mcp-method": "tools/call",
      "mcp-name": "my-hyphenated-tool"
    })
    expect(RequestHeaders.standardHeaders("prompts/get", { name: "p" })["mcp-name"]).toBe("p")
    expect(RequestHeaders.standardHeaders("resources/read", { uri: "file:///a%20b.txt" })["mcp-name"]).toBe(
      "file:///a%20b.txt"
    )
    // a name that is no plain header value is carried in Base64
    expect(RequestHeaders.standardHeaders("resources/read", { uri: "file:///ünï" })["mcp-name"]).toBe(
      `=?base64?${Buffer.from("file:///ünï").toString("base64")}?=`
    )
    expect(RequestHeaders.standardHeaders("tasks/get", { taskId: "t-1" })["mcp-name"]).toBe("t-1")
    expect(RequestHeaders.standardHeaders("resources/read", undefined)).toEqual({ "mcp-method": "resources/read" })
  })
})

describe("RequestHeaders.declarations", () => {
  it("reads annotations on properties, nested ones included", () => {
    expect(RequestHeaders.declarations({
      type: "object",
      properties: {
        region: prop("string", "Region"),
        query: { type: "string" },
        options: object({ verbose: prop("boolean", "Verbose"), retries: prop(["integer", "null"], "Retries") })
      }
    })).toEqual({
      _tag: "Valid",
      headers: [
        { name: "Region", path: ["region"], types: ["string"] },
        { name: "Verbose", path: ["options", "verbose"], types: ["boolean"] },
        { name: "Retries", path: ["options", "retries"], types: ["integer"] }
      ]
    })
    expect(RequestHeaders.declarations({ type: "object" })).toEqual({ _tag: "Valid", headers: [] })
    // a property that is merely named like the annotation is no annotation
    expect(RequestHeaders.declarations(object({ "x-mcp-header": { type: "string" } }))._tag).toBe("Valid")
    // nor is data in a default value
    expect(RequestHeaders.declarations({ ...object({}), default: { "x-mcp-header": "" } })._tag).toBe("Valid")
  })

  // the invalid tools of the conformance scenario http-invalid-tool-headers
  it.each([
    ["empty", object({ value: prop("string", "") }), "empty"],
    ["object", object({ data: prop("object", "Data") }), "not string, integer or boolean"],
    ["array", object({ items: { ...prop("array", "Items"), items: { type: "string" } } }), "not string"],
    ["null", object({ nil: prop("null", "Nil") }), "not string"],
    ["number", object({ score: prop("number", "Score") }), "not string"],
    ["untyped", object({ x: { "x-mcp-header": "X" } }), "not string"],
    ["same name", object({ a: prop("string", "Region"), b: prop("string", "Region") }), "repeats"],
    ["names differing in case", object({ a: prop("string", "MyField"), b: prop("string", "myfield") }), "repeats"],
    ["space", object({ value: prop("string", "My Region") }), "not a valid header name"],
    ["colon", object({ value: prop("string", "Region:Primary") }), "not a valid header name"],
    ["non-ASCII", object({ value: prop("string", "Région") }), "not a valid header name"],
    ["control character", object({ value: prop("string", "Region\t1") }), "not a valid header name"],
    ["CR LF", object({ value: prop("string", "Region\r\nX-Evil") }), "not a valid header name"],
    ["not a string", object({ value: prop("string", 42) }), "not a string"],
    ["in items", object({ list: { type: "array", items: prop("string", "Item") } }), "through \"properties\" only"],
    ["in anyOf", object({ v: { anyOf: [prop("string", "V")] } }), "through \"properties\" only"],
    ["in $defs", { ...object({}), $defs: { d: prop("string", "D") } }, "through \"properties\" only"],
    ["in then", object({ v: { if: {}, then: prop("string", "V") } }), "through \"properties\" only"],
    ["on the root", { type: "string", "x-mcp-header": "Root" }, "through \"properties\" only"],
    ["under additionalProperties", { type: "object", additionalProperties: object({ a: prop("string", "A") }) }, "only"]
  ])("%s is invalid", (_, schema, reason) => {
    expect(reasonOf(schema)).toContain(reason)
  })
})

describe("RequestHeaders.paramHeaders", () => {
  const declared = RequestHeaders.declarations(object({
    region: prop("string", "Region"),
    priority: prop("integer", "Priority"),
    verbose: prop("boolean", "Verbose"),
    text: prop("string", "Text"),
    method: prop("string", "Method"),
    nested: object({ zone: prop("string", "Zone") }),
    query: { type: "string" }
  }))
  const headers = declared._tag === "Valid" ? declared.headers : []

  it("mirrors present values with the revision's encoding, omits null and absent ones", () => {
    expect(RequestHeaders.paramHeaders(headers, {
      region: "us-west1",
      priority: -7,
      verbose: false,
      text: "Hello, 世界",
      method: "test-method",
      nested: { zone: "b" },
      query: "SELECT 1"
    })).toEqual({
      "mcp-param-region": "us-west1",
      "mcp-param-priority": "-7",
      "mcp-param-verbose": "false",
      "mcp-param-text": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "mcp-param-method": "test-method",
      "mcp-param-zone": "b"
    })
    expect(RequestHeaders.paramHeaders(headers, { region: null, priority: 1 })).toEqual({ "mcp-param-priority": "1" })
    expect(RequestHeaders.paramHeaders(headers, undefined)).toEqual({})
  })

  it("gives no header for a value the declaration cannot carry", () => {
    expect(RequestHeaders.paramHeaders(headers, {
      region: 5,
      priority: 1.5,
      verbose: "yes",
      text: { a: 1 },
      nested: "flat"
    })).toEqual({})
    expect(RequestHeaders.paramHeaders(headers, { priority: 2 ** 53 })).toEqual({})
  })
})

describe("RequestHeaders.make", () => {
  const tool = (name: string, inputSchema: Record<string, unknown>): McpSchema.Tool =>
    ({ name, inputSchema: { type: "object", ...inputSchema } }) as McpSchema.Tool

  it.effect("keeps valid tools, warns about each dropped one, and adds their headers to tools/call", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(message))
      })
      const service = yield* RequestHeaders.make
      const kept = yield* service.register([
        tool("valid_tool", { properties: { region: prop("string", "Region") } }),
        tool("invalid_empty_header", { properties: { value: prop("string", "") } }),
        tool("plain", {})
      ]).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(kept.map((t) => t.name)).toEqual(["valid_tool", "plain"])
      expect(warnings).toEqual([
        expect.stringContaining("invalid_empty_header: x-mcp-header of value is empty")
      ])
      expect(service.headersFor("tools/call", { name: "valid_tool", arguments: { region: "eu" } })).toEqual({
        "mcp-method": "tools/call",
        "mcp-name": "valid_tool",
        "mcp-param-region": "eu"
      })
      // a tool that was dropped, or never listed, gets the standard headers only
      expect(service.headersFor("tools/call", { name: "invalid_empty_header", arguments: { value: "x" } })).toEqual({
        "mcp-method": "tools/call",
        "mcp-name": "invalid_empty_header"
      })
      // a later list replaces the earlier one
      yield* service.register([tool("plain", {})])
      expect(service.headersFor("tools/call", { name: "valid_tool", arguments: { region: "eu" } })).toEqual({
        "mcp-method": "tools/call",
        "mcp-name": "valid_tool"
      })
    }))
})

describe("McpClient with a RequestHeaders service (as over HTTP)", () => {
  const listed = {
    tools: [
      { name: "valid_tool", inputSchema: { type: "object", properties: { region: prop("string", "Region") } } },
      { name: "invalid_number_header", inputSchema: { type: "object", properties: { score: prop("number", "Score") } } }
    ]
  }
  const server = { capabilities: { tools: {} }, handlers: { "tools/list": () => Effect.succeed(listed) } }

  it.effect("leaves tools with invalid x-mcp-header annotations out of the list and registers the others", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const headers = yield* RequestHeaders.RequestHeaders
      expect((yield* client.listTools).map((t) => t.name)).toEqual(["valid_tool"])
      expect((yield* client.tools.get).map((t) => t.name)).toEqual(["valid_tool"])
      expect(headers.headersFor("tools/call", { name: "valid_tool", arguments: { region: "eu" } })["mcp-param-region"])
        .toBe("eu")
    }).pipe(
      Effect.provide(
        clientLayer(server).pipe(Layer.provideMerge(Layer.effect(RequestHeaders.RequestHeaders, RequestHeaders.make)))
      )
    ))

  it.effect("without one (stdio) lists every tool as the server sent it", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.listTools).map((t) => t.name)).toEqual(["valid_tool", "invalid_number_header"])
    }).pipe(Effect.provide(clientLayer(server))))
})

describe("McpClient: a call refused with HeaderMismatch (-32020)", () => {
  const serverOf = () => {
    const seen = { lists: 0, calls: 0 }
    const options = {
      capabilities: { tools: {} },
      handlers: {
        "tools/list": () =>
          Effect.sync(() => (seen.lists++, { tools: [{ name: "t", inputSchema: { type: "object" } }] })),
        // refused once, as a server whose tool gained an x-mcp-header annotation refuses a call without it
        "tools/call": () =>
          ++seen.calls === 1 ?
            Effect.fail(new McpError.ProtocolError({ code: McpError.ErrorCode.HeaderMismatch, message: "mismatch" })) :
            Effect.succeed({ content: [{ type: "text", text: "ok" }] })
      }
    }
    return { seen, options }
  }

  const withHeaders = serverOf()
  it.effect("over HTTP: lists the tools again and sends the call once more", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "t", arguments: {} })
      expect(result.content).toEqual([{ type: "text", text: "ok" }])
      // one list to find the tool before the call, one after the refusal
      expect(withHeaders.seen).toEqual({ lists: 2, calls: 2 })
    }).pipe(
      Effect.provide(
        clientLayer(withHeaders.options).pipe(
          Layer.provideMerge(Layer.effect(RequestHeaders.RequestHeaders, RequestHeaders.make))
        )
      )
    ))

  const without = serverOf()
  it.effect("without RequestHeaders: the refusal is the call's error", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "t", arguments: {} }))
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.HeaderMismatch })
      expect(without.seen.calls).toBe(1)
    }).pipe(Effect.provide(clientLayer(without.options))))
})
