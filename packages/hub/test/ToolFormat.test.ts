import { describe, expect, it } from "@effect/vitest"
import type { McpSchema } from "@mcp-effect/core"
import { ToolFormat } from "@mcp-effect/hub"
import * as fc from "fast-check"

// --- Gemini's subset, as a checker -------------------------------------------

const types = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"])
const formats: Record<string, ReadonlyArray<string>> = {
  STRING: ["enum", "date-time"],
  INTEGER: ["int32", "int64"],
  NUMBER: ["float", "double"]
}
const only: Record<string, ReadonlyArray<string>> = {
  enum: ["STRING"],
  minLength: ["STRING"],
  maxLength: ["STRING"],
  minimum: ["NUMBER", "INTEGER"],
  maximum: ["NUMBER", "INTEGER"],
  items: ["ARRAY"],
  minItems: ["ARRAY"],
  maxItems: ["ARRAY"],
  properties: ["OBJECT"],
  required: ["OBJECT"],
  minProperties: ["OBJECT"],
  maxProperties: ["OBJECT"]
}
const keys = new Set([...Object.keys(only), "type", "format", "title", "description", "nullable", "anyOf"])
const isCount = (u: unknown) => typeof u === "number" && Number.isInteger(u) && u >= 0

/** The problems of `node` against the subset (empty when it is inside). */
const problems = (node: unknown, path = "$"): Array<string> => {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return [`${path}: not an object`]
  const n = node as Record<string, unknown>
  const out: Array<string> = []
  for (const key of Object.keys(n)) {
    if (!keys.has(key)) out.push(`${path}: keyword ${key}`)
    if (n[key] === undefined) out.push(`${path}.${key}: undefined`)
  }
  if (n.anyOf !== undefined) {
    if (n.type !== undefined) out.push(`${path}: type next to anyOf`)
    if (!Array.isArray(n.anyOf) || n.anyOf.length === 0) return [...out, `${path}.anyOf: empty`]
    n.anyOf.forEach((b, i) => out.splice(out.length, 0, ...problems(b, `${path}.anyOf[${i}]`)))
  } else if (typeof n.type !== "string" || !types.has(n.type)) {
    out.push(`${path}: type ${String(n.type)}`)
  }
  const type = n.type as string
  for (const [key, allowed] of Object.entries(only)) {
    if (n[key] !== undefined && !allowed.includes(type)) out.push(`${path}: ${key} on ${type}`)
  }
  if (n.format !== undefined && !(formats[type] ?? []).includes(n.format as string)) out.push(`${path}: format`)
  for (const key of ["title", "description"]) {
    if (n[key] !== undefined && typeof n[key] !== "string") out.push(`${path}.${key}: not a string`)
  }
  if (n.nullable !== undefined && typeof n.nullable !== "boolean") out.push(`${path}.nullable`)
  for (const key of ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]) {
    if (n[key] !== undefined && !isCount(n[key])) out.push(`${path}.${key}: not a count`)
  }
  for (const key of ["minimum", "maximum"]) {
    if (n[key] !== undefined && !Number.isFinite(n[key])) out.push(`${path}.${key}: not finite`)
  }
  if (n.enum !== undefined) {
    if (!Array.isArray(n.enum) || n.enum.length === 0 || !n.enum.every((v) => typeof v === "string")) {
      out.push(`${path}.enum: not strings`)
    }
  }
  if (type === "ARRAY") {
    if (n.items === undefined) out.push(`${path}: ARRAY without items`)
    else out.splice(out.length, 0, ...problems(n.items, `${path}.items`))
  }
  if (n.properties !== undefined) {
    const properties = n.properties as Record<string, unknown>
    if (Object.keys(properties).length === 0) out.push(`${path}.properties: empty`)
    for (const [name, schema] of Object.entries(properties)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) out.push(`${path}.properties: a name Gemini refuses: ${name}`)
      out.splice(out.length, 0, ...problems(schema, `${path}.properties.${name}`))
    }
  }
  if (n.required !== undefined) {
    const required = n.required as Array<unknown>
    const properties = (n.properties ?? {}) as Record<string, unknown>
    if (!Array.isArray(required) || required.length === 0) out.push(`${path}.required: empty`)
    else if (!required.every((r) => typeof r === "string" && Object.hasOwn(properties, r))) {
      out.push(`${path}.required: names an undeclared property`)
    }
    if (new Set(required).size !== required.length) out.push(`${path}.required: duplicates`)
  }
  return out
}

const parametersProblems = (parameters: unknown): Array<string> => {
  if (parameters === undefined) return []
  const p = parameters as { type?: unknown; properties?: unknown }
  const out = problems(parameters)
  if (p.type !== "OBJECT" || p.properties === undefined) out.push("$: parameters must be an OBJECT with properties")
  // JSON-serialisable as it is (no cycles, no undefined, nothing lost)
  if (JSON.stringify(JSON.parse(JSON.stringify(parameters))) !== JSON.stringify(parameters)) out.push("$: not JSON")
  return out
}

// --- arbitrary JSON Schemas --------------------------------------------------

const keyword = fc.constantFrom(
  "type",
  "properties",
  "required",
  "items",
  "prefixItems",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "$ref",
  "$defs",
  "definitions",
  "enum",
  "const",
  "format",
  "nullable",
  "additionalProperties",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "description",
  "title",
  "default",
  "examples",
  "__proto__",
  "constructor",
  "if",
  "then",
  "else"
)
const typeName = fc.constantFrom("string", "number", "integer", "boolean", "array", "object", "null", "STRING", "any")
const ref = fc.constantFrom(
  "#",
  "#/$defs/a",
  "#/$defs/b",
  "#/definitions/a",
  "#/properties/x",
  "#/items",
  "#/nope",
  "x.json",
  "#/$defs/a/properties/x"
)

const { schema: arbitrarySchema } = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    tie("node")
  ),
  node: fc.dictionary(
    keyword,
    fc.oneof(
      typeName,
      fc.array(typeName, { maxLength: 3 }),
      ref,
      fc.dictionary(fc.constantFrom("a", "b", "x", "__proto__", "c d", "c_d", "2fa", "a-b"), tie("schema"), {
        maxKeys: 3
      }),
      fc.array(tie("schema"), { maxLength: 3 }),
      fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()), { maxLength: 4 }),
      fc.jsonValue({ maxDepth: 1 }),
      tie("schema")
    ),
    { maxKeys: 6 }
  )
}))

describe("ToolFormat.geminiSchema", () => {
  it("always yields a schema inside Gemini's subset, for arbitrary JSON Schemas", () => {
    fc.assert(
      fc.property(arbitrarySchema, (schema) => {
        expect(problems(ToolFormat.geminiSchema(schema))).toEqual([])
        expect(parametersProblems(ToolFormat.geminiParameters(schema))).toEqual([])
      }),
      { numRuns: 3000, seed: 20261122 }
    )
  })

  it("declares a parameter Gemini refuses under a name it takes, and gives the call's arguments their server's names back", () => {
    const tool: McpSchema.Tool = {
      name: "write",
      inputSchema: {
        type: "object",
        properties: {
          "file-path": { type: "string" },
          "2fa": { type: "string" },
          file_path: { type: "number" },
          nested: { type: "object", properties: { "a.b": { type: "integer" } } },
          list: { type: "array", items: { type: "object", properties: { "x-y": { type: "boolean" } } } },
          choice: {
            anyOf: [{ type: "object", properties: { "k-1": { type: "string" } } }, { type: "string" }]
          }
        },
        required: ["file-path", "2fa"]
      }
    }
    const parameters = ToolFormat.geminiFunctionDeclaration(tool).parameters
    expect(Object.keys(parameters?.properties ?? {})).toEqual([
      "file_path_2",
      "_2fa",
      "file_path",
      "nested",
      "list",
      "choice"
    ])
    expect(parameters?.required).toEqual(["file_path_2", "_2fa"])
    expect(Object.keys(parameters?.properties?.nested.properties ?? {})).toEqual(["a_b"])
    expect(problems(parameters)).toEqual([])
    expect(
      ToolFormat.geminiArguments(tool, {
        file_path_2: "/tmp/x",
        _2fa: "123456",
        file_path: 1,
        nested: { a_b: 2 },
        list: [{ x_y: true }, { x_y: false }],
        choice: { k_1: "v" }
      })
    ).toEqual({
      "file-path": "/tmp/x",
      "2fa": "123456",
      file_path: 1,
      nested: { "a.b": 2 },
      list: [{ "x-y": true }, { "x-y": false }],
      choice: { "k-1": "v" }
    })
    // a string for the union, and arguments of a tool with no renamed parameter, pass as they are
    expect(ToolFormat.geminiArguments(tool, { choice: "plain" })).toEqual({ choice: "plain" })
    const plain = { ...tool, inputSchema: { type: "object" as const, properties: { q: { type: "string" } } } }
    expect(ToolFormat.geminiArguments(plain, { q: "x" })).toEqual({ q: "x" })
  })

  it("keeps the server's names of renamed parameters when object branches are merged", () => {
    const schema = {
      type: "object",
      properties: {
        target: {
          oneOf: [
            { type: "object", properties: { "by-id": { type: "string" } }, required: ["by-id"] },
            { type: "object", properties: { "by-name": { type: "string" } }, required: ["by-name"] }
          ]
        }
      }
    }
    const parameters = ToolFormat.geminiParameters(schema)
    expect(Object.keys(parameters?.properties?.target.properties ?? {})).toEqual(["by_id", "by_name"])
    const tool: McpSchema.Tool = { name: "find", inputSchema: schema as McpSchema.Tool["inputSchema"] }
    expect(ToolFormat.geminiArguments(tool, { target: { by_name: "x" } })).toEqual({ target: { "by-name": "x" } })
  })

  it("a `properties` that is not an object declares nothing (found by the property above)", () => {
    const schema = { allOf: [{ properties: [] }, { properties: { "": null } }] }
    expect(problems(ToolFormat.geminiSchema(schema))).toEqual([])
    expect(parametersProblems(ToolFormat.geminiParameters(schema))).toEqual([])
  })

  it("inlines $ref, cuts recursion, and keeps descriptions", () => {
    const schema = {
      type: "object",
      $defs: {
        node: {
          type: "object",
          description: "a tree node",
          properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
          required: ["label"]
        }
      },
      properties: { root: { $ref: "#/$defs/node" } },
      required: ["root", "missing"]
    }
    expect(ToolFormat.geminiParameters(schema)).toEqual({
      type: "OBJECT",
      properties: {
        root: {
          type: "OBJECT",
          description: "a tree node",
          properties: {
            label: { type: "STRING" },
            children: { type: "ARRAY", items: { type: "OBJECT", description: "a tree node" } }
          },
          required: ["label"]
        }
      },
      required: ["root"]
    })
  })

  it("turns null branches and type arrays into nullable, merges object unions, keeps enums as strings", () => {
    expect(ToolFormat.geminiSchema({ type: ["string", "null"], format: "date-time" }))
      .toEqual({ type: "STRING", format: "date-time", nullable: true })
    expect(ToolFormat.geminiSchema({ anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], description: "n" }))
      .toEqual({ type: "INTEGER", minimum: 1, nullable: true, description: "n" })
    expect(ToolFormat.geminiSchema({ type: ["string", "number"] }))
      .toEqual({ anyOf: [{ type: "STRING" }, { type: "NUMBER" }] })
    expect(ToolFormat.geminiSchema({
      oneOf: [
        { type: "object", properties: { kind: { const: "a" }, a: { type: "string" } }, required: ["kind", "a"] },
        { type: "object", properties: { kind: { const: "b" }, b: { type: "number" } }, required: ["kind"] }
      ]
    })).toEqual({
      type: "OBJECT",
      properties: { kind: { type: "STRING", enum: ["a"] }, a: { type: "STRING" }, b: { type: "NUMBER" } },
      required: ["kind"]
    })
    expect(ToolFormat.geminiSchema({ enum: ["x", "y", null] })).toEqual({
      type: "STRING",
      enum: ["x", "y"],
      nullable: true
    })
    expect(ToolFormat.geminiSchema({ type: "string", pattern: "^(?!x)", minLength: 1 }))
      .toEqual({ type: "STRING", minLength: 1, description: "pattern: ^(?!x)" })
    expect(ToolFormat.geminiSchema({ type: "integer", enum: [1, 2], description: "level" }))
      .toEqual({ type: "INTEGER", description: "level (one of: 1, 2)" })
    expect(ToolFormat.geminiSchema({
      allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, {
        properties: { b: { type: "boolean", default: true } }
      }],
      not: { required: ["c"] }
    })).toEqual({ type: "OBJECT", properties: { a: { type: "STRING" }, b: { type: "BOOLEAN" } }, required: ["a"] })
  })

  it("gives no parameters for a tool without arguments, and string items for untyped arrays", () => {
    expect(ToolFormat.geminiParameters({ type: "object", properties: {} })).toBeUndefined()
    expect(ToolFormat.geminiParameters({ type: "object" })).toBeUndefined()
    expect(ToolFormat.geminiSchema({ type: "array" })).toEqual({ type: "ARRAY", items: { type: "STRING" } })
    expect(ToolFormat.geminiSchema({})).toEqual({ type: "STRING" })
  })
})

describe("ToolFormat.openAiStrictSchema", () => {
  it("is strict when every property is required, filling in additionalProperties and dropping annotations", () => {
    expect(ToolFormat.openAiStrictSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        path: { type: "string", default: "." },
        edits: {
          type: "array",
          items: { type: "object", properties: { old: { type: "string" } }, required: ["old"] }
        }
      },
      required: ["path", "edits"]
    })).toEqual({
      type: "object",
      properties: {
        path: { type: "string" },
        edits: {
          type: "array",
          items: {
            type: "object",
            properties: { old: { type: "string" } },
            required: ["old"],
            additionalProperties: false
          }
        }
      },
      required: ["path", "edits"],
      additionalProperties: false
    })
    expect(ToolFormat.openAiStrictSchema({ type: "object", properties: {} }))
      .toEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
  })

  it("is not strict when the schema would change meaning", () => {
    const cases: ReadonlyArray<unknown> = [
      { type: "object", properties: { a: { type: "string" } } },
      { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: true },
      { type: "object", properties: { a: { type: "object" } }, required: ["a"] },
      { type: "object", properties: { a: { type: "string", format: "uri" } }, required: ["a"] },
      { type: "object", properties: { a: { allOf: [{ type: "string" }] } }, required: ["a"] },
      { type: "object", properties: { a: { type: "array", items: [{ type: "string" }] } }, required: ["a"] },
      { anyOf: [{ type: "object", properties: {} }] },
      "not a schema"
    ]
    for (const schema of cases) expect(ToolFormat.openAiStrictSchema(schema)).toBeUndefined()
  })
})

describe("ToolFormat tools", () => {
  const tool: McpSchema.Tool = {
    name: "fs.read file",
    title: "Read",
    description: "Reads a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
  }

  it("uses the caller's name or a sanitised one", () => {
    expect(ToolFormat.anthropicTool(tool).name).toBe("fs_read_file")
    expect(ToolFormat.anthropicTool({ name: "files__read", tool }).name).toBe("files__read")
    const long = ToolFormat.sanitizeName("x".repeat(70))
    expect(long).toMatch(/^[a-zA-Z0-9_-]{64}$/)
    expect(long).not.toBe(ToolFormat.sanitizeName("x".repeat(71)))
    expect(ToolFormat.sanitizeName("")).toBe("tool")
    expect(ToolFormat.sanitizeName("ok-name_1")).toBe("ok-name_1")
  })

  it("formats for each provider", () => {
    expect(ToolFormat.openAiChatTool(tool)).toEqual({
      type: "function",
      function: {
        name: "fs_read_file",
        description: "Reads a file",
        parameters: { ...tool.inputSchema, additionalProperties: false },
        strict: true
      }
    })
    expect(ToolFormat.openAiChatTool(tool, { strict: false }).function).toEqual({
      name: "fs_read_file",
      description: "Reads a file",
      parameters: tool.inputSchema
    })
    expect(ToolFormat.openAiResponsesTool({ ...tool, inputSchema: { type: "object", properties: { p: {} } } }))
      .toEqual({
        type: "function",
        name: "fs_read_file",
        description: "Reads a file",
        parameters: { type: "object", properties: { p: {} } },
        strict: false
      })
    expect(ToolFormat.anthropicTool(tool))
      .toEqual({ name: "fs_read_file", description: "Reads a file", input_schema: tool.inputSchema })
    expect(ToolFormat.geminiFunctionDeclaration({ ...tool, description: undefined } as McpSchema.Tool)).toEqual({
      name: "fs_read_file",
      description: "Read",
      parameters: { type: "OBJECT", properties: { path: { type: "STRING" } }, required: ["path"] }
    })
  })
})

describe("ToolFormat schema roots (OpenAI, Anthropic)", () => {
  const named = (inputSchema: McpSchema.Tool["inputSchema"]) => ({ name: "t", tool: { name: "t", inputSchema } })

  it("keeps a root that fits as the same object", () => {
    const inputSchema = { type: "object" as const, properties: { a: { type: "string" } }, $schema: "x" }
    expect(ToolFormat.anthropicTool(named(inputSchema)).input_schema).toBe(inputSchema)
    expect(ToolFormat.openAiChatTool(named(inputSchema)).function.parameters).toBe(inputSchema)
  })

  it("gives properties to an object root without them", () => {
    expect(ToolFormat.openAiChatTool(named({ type: "object" })).function.parameters)
      .toEqual({ type: "object", properties: {} })
    // an object without declared properties may hold anything: not strict
    expect(ToolFormat.openAiResponsesTool(named({ type: "object" })))
      .toMatchObject({ parameters: { type: "object", properties: {} }, strict: false })
  })

  it("always gives an object root with properties and no top-level union, for arbitrary schemas", () => {
    fc.assert(
      fc.property(arbitrarySchema, (schema) => {
        const inputSchema = {
          ...(typeof schema === "object" && !Array.isArray(schema) ? schema : {}),
          type: "object" as const
        }
        const roots = [
          ToolFormat.anthropicTool(named(inputSchema)).input_schema,
          ToolFormat.openAiChatTool(named(inputSchema)).function.parameters,
          ToolFormat.openAiResponsesTool(named(inputSchema)).parameters
        ]
        for (const root of roots) {
          expect(root.type).toBe("object")
          expect(typeof root.properties === "object" && root.properties !== null && !Array.isArray(root.properties))
            .toBe(true)
          expect([root.anyOf, root.oneOf, root.allOf]).toEqual([undefined, undefined, undefined])
        }
      }),
      { numRuns: 1000, seed: 20261122 }
    )
  })

  it("flattens a root union into one object", () => {
    const inputSchema = {
      type: "object" as const,
      description: "either",
      $defs: { byPath: { type: "object", properties: { path: { type: "string" } }, required: ["path", "mode"] } },
      anyOf: [
        { $ref: "#/$defs/byPath" },
        { properties: { id: { type: "number" }, mode: { type: "string" } }, required: ["id", "mode"] }
      ],
      allOf: [{ properties: { dryRun: { type: "boolean" } }, required: ["dryRun"] }]
    }
    const flat = {
      type: "object",
      description: "either",
      $defs: inputSchema.$defs,
      properties: {
        dryRun: { type: "boolean" },
        path: { type: "string" },
        id: { type: "number" },
        mode: { type: "string" }
      },
      required: ["dryRun", "mode"]
    }
    expect(ToolFormat.anthropicTool(named(inputSchema)).input_schema).toEqual(flat)
    expect(ToolFormat.openAiResponsesTool(named(inputSchema))).toMatchObject({ parameters: flat, strict: false })
  })
})

describe("ToolFormat results", () => {
  const png = "iVBORw0KGgo="
  const result: McpSchema.CallToolResult = {
    content: [
      { type: "text", text: "hello" },
      { type: "image", data: png, mimeType: "image/png" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside" } },
      { type: "resource", resource: { uri: "file:///a.bin", mimeType: "application/zip", blob: "AAAAAA==" } },
      { type: "resource_link", uri: "file:///b.md", name: "b.md", mimeType: "text/markdown", description: "notes" }
    ]
  }
  const texts = [
    "hello",
    "[image: image/png, 8 bytes, not shown]",
    "[audio: audio/wav, 3 bytes, not shown]",
    "[resource file:///a.txt (text/plain)]\ninside",
    "[file file:///a.bin: application/zip, 4 bytes, not shown]",
    "[resource link b.md: file:///b.md]\ntype: text/markdown\nnotes"
  ]

  it("OpenAI chat: text only, media as notes", () => {
    expect(ToolFormat.openAiChatResult("call_1", result))
      .toEqual({ role: "tool", tool_call_id: "call_1", content: texts.join("\n\n") })
  })

  it("OpenAI Responses: images as input_image parts", () => {
    expect(ToolFormat.openAiResponsesResult("call_1", result)).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: [
        { type: "input_text", text: "hello" },
        { type: "input_image", image_url: `data:image/png;base64,${png}` },
        ...texts.slice(2).map((text) => ({ type: "input_text", text }))
      ]
    })
    expect(ToolFormat.openAiResponsesResult("c", { content: [{ type: "text", text: "no" }], isError: true }).output)
      .toBe("Tool error: no")
  })

  it("Anthropic: tool_result with image blocks and is_error", () => {
    expect(ToolFormat.anthropicResult("toolu_1", { ...result, isError: true })).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      is_error: true,
      content: [
        { type: "text", text: "hello" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
        ...texts.slice(2).map((text) => ({ type: "text", text }))
      ]
    })
    expect(
      ToolFormat.anthropicResult("t", { content: [{ type: "image", data: png, mimeType: "image/svg+xml" }] }).content
    )
      .toEqual([{ type: "text", text: "[image: image/svg+xml, 8 bytes, not shown]" }])
  })

  it("Gemini: functionResponse with output or error, media as inlineData", () => {
    expect(ToolFormat.geminiResult("read", result, { id: "fc_1" })).toEqual([
      { functionResponse: { name: "read", id: "fc_1", response: { output: texts.join("\n\n") } } },
      { inlineData: { mimeType: "image/png", data: png } },
      { inlineData: { mimeType: "audio/wav", data: "AAAA" } }
    ])
    expect(ToolFormat.geminiResult("read", { content: [{ type: "text", text: "boom" }], isError: true }))
      .toEqual([{ functionResponse: { name: "read", response: { error: "boom" } } }])
  })

  it("structuredContent: the object for Gemini, JSON text where content is empty", () => {
    const structured: McpSchema.CallToolResult = { content: [], structuredContent: { temperature: 22 } }
    expect(ToolFormat.geminiResponse(structured)).toEqual({ output: { temperature: 22 } })
    expect(ToolFormat.openAiChatContent(structured)).toBe("{\"temperature\":22}")
    expect(ToolFormat.anthropicContent(structured)).toEqual([{ type: "text", text: "{\"temperature\":22}" }])
    const mirrored: McpSchema.CallToolResult = {
      content: [{ type: "text", text: "22 degrees" }],
      structuredContent: { temperature: 22 }
    }
    expect(ToolFormat.openAiChatContent(mirrored)).toBe("22 degrees")
    expect(ToolFormat.resultPayload("gemini", mirrored)).toEqual({ output: { temperature: 22 } })
    const media: McpSchema.CallToolResult = {
      content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      structuredContent: { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] }
    }
    expect(ToolFormat.openAiChatContent(media)).toBe("[image: image/png, 3 bytes, not shown]")
    expect(ToolFormat.geminiResponse(media)).toEqual({ output: "[image: image/png, 3 bytes, not shown]" })
  })
})
