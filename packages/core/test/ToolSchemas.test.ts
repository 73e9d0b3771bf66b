// JSON Schemas in tool definitions (SEP-1613, SEP-2106): they reach the app exactly as the
// server sent them, and a `$ref` to a network URI is never fetched.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as JsonSchemaValidator from "../src/JsonSchemaValidator.js"
import * as McpClient from "../src/McpClient.js"
import { clientLayer, eventually, receivedWith } from "./utils.js"

// every 2020-12 keyword family, in the order a server wrote them
const richSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://example.test/schemas/order",
  $comment: "kept as sent",
  type: "object",
  $defs: {
    sku: { $anchor: "sku", type: "string", pattern: "^[A-Z]{3}-[0-9]+$" },
    qty: { type: "integer", minimum: 1, exclusiveMaximum: 1000 }
  },
  properties: {
    sku: { $ref: "#sku" },
    quantity: { $ref: "#/$defs/qty" },
    tags: { type: "array", prefixItems: [{ const: "primary" }], items: { type: "string" }, uniqueItems: true },
    shipping: {
      anyOf: [{ type: "null" }, { type: "object", properties: { express: { type: "boolean" } } }]
    },
    payment: {
      type: "object",
      if: { properties: { kind: { const: "card" } } },
      then: { required: ["last4"] },
      else: { not: { required: ["last4"] } },
      dependentSchemas: { last4: { properties: { last4: { type: "string", minLength: 4, maxLength: 4 } } } }
    }
  },
  allOf: [{ required: ["sku"] }, { required: ["quantity"] }],
  required: ["sku", "quantity"],
  additionalProperties: false,
  unevaluatedProperties: false,
  "x-vendor": { keep: ["me"] }
}

const echoSchema = { type: "object", properties: { schema: { type: "object" } }, required: ["schema"] }

/** A loopback HTTP server that counts every request it gets. */
const canaryServer = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly hits: () => number; readonly server: http.Server }>((resume) => {
    let hits = 0
    const server = http.createServer((_req, res) => {
      hits++
      res.writeHead(200, { "content-type": "application/schema+json" })
      res.end(JSON.stringify({ type: "object" }))
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/canary/profile-schema.json`, hits: () => hits, server }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("tool schemas", () => {
  it.effect("reach the app unchanged: listTools, the live tools view, and sent back as arguments", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const sent = JSON.stringify(richSchema)
      const tools = yield* client.listTools
      const focal = tools.find((t) => t.name === "focal")!
      expect(JSON.stringify(focal.inputSchema)).toBe(sent)
      expect(JSON.stringify(focal.outputSchema)).toBe(sent)
      const view = yield* eventually(Effect.map(client.tools.get, (ts) => ts.length > 0 && ts))
      expect(JSON.stringify(view.find((t) => t.name === "focal")!.inputSchema)).toBe(sent)

      yield* client.callTool({ name: "echo", arguments: { schema: focal.inputSchema } })
      const [call] = yield* receivedWith("tools/call")
      expect(JSON.stringify((call.params as { arguments: { schema: unknown } }).arguments.schema)).toBe(sent)
      // validating structuredContent against the schema did not annotate it either
      expect(JSON.stringify(focal.outputSchema)).toBe(sent)
    }).pipe(Effect.provide(clientLayer(
      {
        capabilities: { tools: {} },
        handlers: {
          "tools/list": () =>
            Effect.succeed({
              tools: [
                { name: "focal", inputSchema: richSchema, outputSchema: richSchema },
                { name: "echo", inputSchema: echoSchema }
              ]
            }),
          "tools/call": () => Effect.succeed({ content: [{ type: "text", text: "echoed" }] })
        }
      },
      { prefetch: true }
    ))))

  it.scoped("a $ref to a network URI is never fetched: not when listing, calling, or validating", () =>
    Effect.gen(function*() {
      const canary = yield* canaryServer
      const schema = {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: { userId: { type: "string", pattern: "^[a-z0-9-]+$" } },
        properties: { id: { $ref: "#/$defs/userId" }, profile: { $ref: canary.url } },
        required: ["id"]
      }
      const result = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const tools = yield* client.listTools
        expect(JSON.stringify(tools[0].inputSchema)).toBe(JSON.stringify(schema))
        // the result's structuredContent is checked against the outputSchema holding the network $ref
        return yield* Effect.either(client.callTool({ name: "lookup_user", arguments: { id: "ada" } }))
      }).pipe(Effect.provide(clientLayer({
        capabilities: { tools: {} },
        handlers: {
          "tools/list": () =>
            Effect.succeed({ tools: [{ name: "lookup_user", inputSchema: schema, outputSchema: schema }] }),
          "tools/call": () =>
            Effect.succeed({ content: [], structuredContent: { id: "ada", profile: { displayName: "Ada" } } })
        }
      })))
      // a schema that cannot be resolved without the network is a typed error, never a fetch
      expect(result._tag).toBe("Left")
      expect(result).toMatchObject({ left: { _tag: "DecodeError", reason: "OutputSchema" } })
      const direct = yield* Effect.flip(JsonSchemaValidator.cfworker.validate(schema, { id: "ada", profile: {} }))
      expect(direct).toMatchObject({ _tag: "ValidationError", reason: "InvalidSchema" })
      expect(canary.hits()).toBe(0)
    }))
})
