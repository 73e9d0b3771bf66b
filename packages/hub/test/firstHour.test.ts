// What a new user meets in the first hour with a registry: one bad tool among good ones, unknown
// tool names, waiting until the servers are ready. In-memory servers, no processes.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as ServerRegistry from "../src/ServerRegistry.js"
import * as ToolFormat from "../src/ToolFormat.js"
import { configs, memoryFactory, withTools } from "./fixtures/memoryFactory.js"
import { statusesWhere } from "./fixtures/registry.js"

const registryOf = (
  servers: Parameters<typeof memoryFactory>[0],
  options: ServerRegistry.Options = {},
  started: ReadonlyArray<string> = Object.keys(servers)
) =>
  Effect.map(
    Layer.build(
      ServerRegistry.layer({ servers: configs(...started), ...options }).pipe(
        Layer.provide(memoryFactory(servers))
      )
    ),
    (context) => context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
  )

describe("a server that never answers initialize", () => {
  it.effect("is Failed at 30 s with default options, its error saying what timed out", () =>
    Effect.gen(function*() {
      const registry = yield* registryOf({ hung: "silent" })
      yield* TestClock.adjust("29999 millis")
      expect((yield* registry.servers.get)[0]._tag).toBe("Connecting")
      yield* TestClock.adjust("1 millis")
      const [status] = yield* registry.awaitReady()
      expect(status._tag).toBe("Failed")
      expect(status.lastError?.message).toBe("initialize timed out after 30000 ms (total timeout)")
    }).pipe(Effect.scoped))
})

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
      expect(status.warnings[0]).toMatchObject({ _tag: "Undecodable", tool: "stringly" })
      expect(status.warnings[0]!.message).toMatch(/^tool "stringly" left out: .*type "object"/)
      const tools = yield* registry.tools.get
      expect(tools.map((t) => t.name)).toEqual(["good", "either"])
      // the root union reaches the provider formats, which flatten it into one object
      expect(ToolFormat.anthropicTool(tools[1]).input_schema).toEqual({
        type: "object",
        properties: { a: { type: "string" } }
      })
    }))
})

describe("calling a tool the registry does not have", () => {
  it.scoped("fails with UnknownTool saying nothing was sent; a server joining later renames nothing", () =>
    Effect.gen(function*() {
      const sent: Array<string> = []
      const echo = (server: string) => ({
        ...withTools([{ name: "echo", inputSchema: { type: "object" } }]),
        handlers: {
          ...withTools([{ name: "echo", inputSchema: { type: "object" } }]).handlers,
          "tools/call": () => Effect.sync(() => sent.push(server)).pipe(Effect.as({ content: [] }))
        }
      })
      const registry = yield* registryOf({ a: echo("a"), b: echo("b") }, {}, ["a"])
      yield* registry.awaitReady()
      yield* registry.callTool("echo")
      expect(sent).toEqual(["a"])

      const unknown = yield* Effect.flip(registry.callTool("nope"))
      expect(unknown).toEqual(new ServerRegistry.UnknownTool({ name: "nope" }))
      expect(unknown.message).toBe("no tool named \"nope\" in the registry, nothing was sent")

      // a second server with a tool of the same name: the first keeps its name, the newcomer is prefixed
      yield* registry.add(configs("b")[0])
      yield* registry.awaitReady()
      expect((yield* registry.tools.get).map((t) => t.name)).toEqual(["echo", "b__echo"])
      yield* registry.callTool("echo")
      yield* registry.callTool("b__echo")
      expect(sent).toEqual(["a", "a", "b"])
    }))
})

describe("awaitReady", () => {
  it.scoped("returns once every server is connected with its tools listed, failed, or disabled", () =>
    Effect.gen(function*() {
      const registry = yield* registryOf({
        tools: withTools([{ name: "t", inputSchema: { type: "object" } }]),
        // a modern-only server is refused by a legacy-pinned client: Failed
        refusing: { era: "modern" }
      }, { client: { era: "legacy" } })
      const statuses = yield* registry.awaitReady()
      expect(statuses.map((s) => [s.name, s._tag, s.toolCount])).toEqual([["tools", "Connected", 1], [
        "refusing",
        "Failed",
        0
      ]])
      // the tools are routable at once
      expect((yield* registry.tools.get).map((t) => t.name)).toEqual(["t"])
    }))

  it.effect("fails with a typed Timeout naming the servers still connecting", () =>
    Effect.gen(function*() {
      const registry = yield* registryOf({ silent: "silent" }, {
        client: { initializeTimeout: "1 hour" }
      })
      const fiber = yield* Effect.fork(Effect.flip(registry.awaitReady({ timeout: "2 seconds" })))
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "RegistryError", reason: "Timeout" })
      expect(error.message).toContain("\"silent\"")
    }).pipe(Effect.scoped))
})
