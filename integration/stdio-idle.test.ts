// An idle stdio session holds no fiber: its connection is read in the backend's
// callbacks and its deadlines are watched by the clock's one shared sweeper. A
// server that dies while the session is idle is still noticed, and the session
// goes on over a new process.
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import { fileURLToPath } from "node:url"

const recordingServer = fileURLToPath(new URL("../test-fixtures/recording-server.mjs", import.meta.url))

const clientLayer = McpClient.layer({ clientInfo: { name: "integration", version: "1.0.0" }, prefetch: false }).pipe(
  Layer.provide(NodeStdioTransport.layer({
    command: process.execPath,
    args: [recordingServer],
    shutdown: { stdinGraceMillis: 200, termGraceMillis: 200 }
  })),
  // the session warns about the lost connection: expected here
  Layer.provide(Logger.remove(Logger.defaultLogger))
)

/** A client whose fibers (every fiber it starts, at any depth) the supervisor sees. */
const supervisedClient = Effect.gen(function*() {
  const supervisor = yield* Supervisor.track
  const context = yield* Effect.supervised(Layer.build(clientLayer), supervisor)
  return { client: Context.get(context, McpClient.McpClient), fibers: supervisor.value }
})

/** The fibers of the client still running once the ones that finish their work have ended (bounded). */
const settledFibers = (fibers: Effect.Effect<Array<Fiber.RuntimeFiber<any, any>>>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const running = yield* fibers
      if (running.length === 0) return running
      yield* Effect.sleep("10 millis")
    }
    return yield* fibers
  })

const pidOf = (client: McpClient.McpClient["Type"]) =>
  Effect.map(client.callTool({ name: "pid" }), (result) => Number((result.content[0] as { text: string }).text))

describe("stdio: an idle session", () => {
  it.scopedLive("holds no fiber once its calls are answered", () =>
    Effect.gen(function*() {
      const { client, fibers } = yield* supervisedClient
      const echoed = yield* client.callTool({ name: "echo", arguments: { text: "hi" } })
      assert.deepStrictEqual(echoed.content, [{ type: "text", text: "hi" }])
      // before: a reader fiber parked on the connection and a sweeper fiber sleeping towards the call's deadline
      assert.deepStrictEqual((yield* settledFibers(fibers)).map((fiber) => fiber.id()), [])
    }))

  it.scopedLive("notices a server that dies while idle, with no reader fiber, and goes on over a new process", () =>
    Effect.gen(function*() {
      const { client, fibers } = yield* supervisedClient
      const pid = yield* pidOf(client)
      assert.strictEqual((yield* settledFibers(fibers)).length, 0)
      const lost = yield* client.state.changes.pipe(
        Stream.filter((state) => state._tag === "Reconnecting"),
        Stream.runHead,
        Effect.fork
      )
      yield* Effect.yieldNow()
      process.kill(pid, "SIGKILL")
      const state = yield* lost.await
      assert.strictEqual(state._tag, "Success")
      // the next call runs on a new process
      const next = yield* pidOf(client)
      assert.notStrictEqual(next, pid)
    }))
})
