import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as McpClient from "../src/McpClient.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually, receivedWith } from "./utils.js"

const tool = (name: string) => ({ name, inputSchema: { type: "object" } })

describe("list_changed", () => {
  const gate = Deferred.unsafeMake<void>(FiberId.none)
  it.effect("a burst causes at most one refresh in flight and one queued", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      for (let i = 0; i < 50; i++) yield* test.notify("notifications/tools/list_changed")
      yield* eventually(Effect.map(receivedWith("tools/list"), (l) => l.length === 1))
      for (let i = 0; i < 50; i++) yield* test.notify("notifications/tools/list_changed")
      yield* Deferred.succeed(gate, undefined)
      yield* eventually(Effect.map(client.tools.get, (tools) => tools.length === 1))
      yield* eventually(Effect.map(receivedWith("tools/list"), (l) => l.length === 2))
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow()
      expect(yield* receivedWith("tools/list")).toHaveLength(2)
    }).pipe(Effect.provide(clientLayer({
      capabilities: { tools: { listChanged: true } },
      handlers: { "tools/list": () => Effect.as(Deferred.await(gate), { tools: [tool("a")] }) }
    }))))

  const first = Deferred.unsafeMake<void>(FiberId.none)
  let calls = 0
  it.effect("an older fetch that finishes last does not overwrite a newer view", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const older = yield* Effect.fork(client.listTools)
      yield* eventually(Effect.map(receivedWith("tools/list"), (l) => l.length === 1))
      yield* test.notify("notifications/tools/list_changed")
      yield* eventually(Effect.map(client.tools.get, (tools) => tools.length === 2))
      yield* Deferred.succeed(first, undefined)
      // the caller gets what it asked for; the view keeps the newer list
      expect((yield* Fiber.join(older)).map((t) => t.name)).toEqual(["old"])
      expect((yield* client.tools.get).map((t) => t.name)).toEqual(["old", "new"])
    }).pipe(Effect.provide(clientLayer({
      capabilities: { tools: { listChanged: true } },
      handlers: {
        "tools/list": () =>
          ++calls === 1 ?
            Effect.as(Deferred.await(first), { tools: [tool("old")] }) :
            Effect.succeed({ tools: [tool("old"), tool("new")] })
      }
    }))))
})
