// What a new user meets in the first hour with a registry: one bad tool among good ones, unknown
// tool names, waiting until the servers are ready. In-memory servers, no processes.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ServerRegistry from "../src/ServerRegistry.js"
import * as ToolFormat from "../src/ToolFormat.js"
import { configs, memoryFactory, withTools } from "./fixtures/memoryFactory.js"
import { statusesWhere } from "./fixtures/registry.js"

const registryOf = (servers: Parameters<typeof memoryFactory>[0], options: ServerRegistry.Options = {}) =>
  Effect.map(
    Layer.build(
      ServerRegistry.layer({ servers: configs(...Object.keys(servers)), ...options }).pipe(
        Layer.provide(memoryFactory(servers))
      )
    ),
    (context) => context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
  )

describe("one bad tool", () => {
  it.scoped("is left out with a warning naming it in the server's status; the server's other tools stay", () =>
    Effect.gen(function*() {
      const registry = yield* registryOf({
        mixed: withTools([
          { name: "good", inputSchema: { type: "object" } },
          { name: "stringly", inputSchema: { type: "string" } },
          { name: "either", inputSchema: { anyOf: [{ type: "object", properties: { a: { type: "string" } } }] } }
        ])
      })
      const statuses = yield* statusesWhere(registry, (s) => s.get("mixed")?.toolCount === 2)
      const status = statuses.get("mixed")!
      expect(status._tag).toBe("Connected")
      expect(status.warnings).toHaveLength(1)
      expect(status.warnings[0]).toMatch(/^tool "stringly" left out: .*type "object"/)
      const tools = yield* registry.tools.get
      expect(tools.map((t) => t.name)).toEqual(["good", "either"])
      // the root union reaches the provider formats, which flatten it into one object
      expect(ToolFormat.anthropicTool(tools[1]).input_schema).toEqual({
        type: "object",
        properties: { a: { type: "string" } }
      })
    }))
})
