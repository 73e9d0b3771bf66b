// The registry's task methods name a server: one it does not have is a typed error, nothing is sent.
// Its clients keep durable task records in the registry's shared storage (`DurableTasks`), and none without it.
import { describe, expect, it } from "@effect/vitest"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import type * as TestServer from "@mcp-effect/core/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import { configs, memoryFactory } from "./fixtures/memoryFactory.js"

/** A server whose one tool runs as a task that never ends. */
const taskServer: TestServer.Options = {
  capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
  handlers: {
    "tools/list": () =>
      Effect.succeed({
        tools: [{ name: "research", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }]
      }),
    "tools/call": () => Effect.succeed({ task: task("t1") }),
    "tasks/get": ({ params }) => Effect.succeed(task(String(params.taskId)))
  }
}
const task = (taskId: string) => ({
  taskId,
  status: "working" as const,
  createdAt: "2026-11-27T00:00:00Z",
  lastUpdatedAt: "2026-11-27T00:00:00Z",
  ttl: null,
  pollInterval: 60_000
})

/** A registry of the task server, with shared storage or without. */
const withStorage = (shared: boolean) =>
  Effect.gen(function*() {
    const layer = ServerRegistry.layer({ servers: configs("reports") }).pipe(
      Layer.provide(memoryFactory({ reports: taskServer }))
    )
    const context = yield* Layer.build(shared ? Layer.provideMerge(layer, SharedStore.layerMemory) : layer)
    return { hub: Context.get(context, ServerRegistry.ServerRegistry) }
  })

const registry = Effect.map(
  Layer.build(
    ServerRegistry.layer(Either.getOrThrow(ServerConfig.fromJson({ mcpServers: {} }))).pipe(
      Layer.provide(NodeTransportFactory.layer)
    )
  ),
  (context) => context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
)

describe("ServerRegistry tasks", () => {
  it.scoped("resumeTask, cancelTask and durableTasks of an unknown server fail with UnknownServer", () =>
    Effect.gen(function*() {
      const hub = yield* registry
      const errors = yield* Effect.all([
        Effect.flip(Stream.runDrain(hub.resumeTask("nowhere", "t1"))),
        Effect.flip(hub.cancelTask("nowhere", "t1")),
        Effect.flip(hub.durableTasks("nowhere"))
      ])
      for (const error of errors) expect(error).toMatchObject({ _tag: "RegistryError", reason: "UnknownServer" })
    }))

  it.scoped("with shared storage, a task-augmented call leaves a durable record; without, none", () =>
    Effect.gen(function*() {
      for (const shared of [true, false]) {
        const { hub } = yield* withStorage(shared)
        yield* hub.awaitReady()
        const client = yield* hub.client("reports")
        const call = yield* Effect.fork(client.callTool({ name: "research", arguments: {} }))
        const records = yield* hub.durableTasks("reports").pipe(
          Effect.repeat({ until: (records) => !shared || records.length > 0, times: 200 })
        )
        expect(records.map((r) => [r.server, r.taskId, r.tool]), `shared storage: ${shared}`).toEqual(
          shared ? [["reports", "t1", "research"]] : []
        )
        yield* Fiber.interrupt(call)
      }
    }))
})
