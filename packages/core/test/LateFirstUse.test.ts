import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpSchema from "../src/McpSchema.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually, receivedWith, reconnect } from "./utils.js"

/**
 * The client builds its fetch pipelines, list_changed refreshers, listen lock and
 * rarely used operations on first use, not per session: used for the first time
 * late, they behave as if made at the start.
 */

let version = 0
const server: TestServer.Options = {
  reconnect: { schedule: Schedule.spaced("1 second") },
  capabilities: { tools: { listChanged: true }, resources: {} },
  handlers: {
    "tools/list": () => Effect.succeed({ tools: [{ name: `v${++version}`, inputSchema: { type: "object" } }] }),
    "resources/templates/list": () =>
      Effect.succeed({ resourceTemplates: [{ name: "files", uriTemplate: "file:///{path}" }] })
  }
}

describe("operations first used late", () => {
  it.effect("after a reconnect: lists, ping and the first list_changed refresh work", () =>
    Effect.gen(function*() {
      version = 0
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* reconnect
      yield* client.ping
      expect((yield* client.listTools).map((tool) => tool.name)).toEqual(["v1"])
      expect((yield* client.listResourceTemplates).map((t) => t.name)).toEqual(["files"])
      // the refresher of this kind is made by this first list_changed
      yield* test.notify("notifications/tools/list_changed")
      yield* eventually(Effect.map(client.tools.get, (tools) => tools[0]?.name === "v2"))
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("after the close: each fails with the session's typed error", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(clientLayer(server), scope)
      const client = Context.get(context, McpClient.McpClient)
      yield* client.initialized
      yield* Scope.close(scope, Exit.void)
      for (
        const operation of [
          client.ping,
          client.listTools,
          client.listResourceTemplates,
          client.listTasks,
          client.subscribe("file:///a")
        ]
      ) {
        expect(yield* Effect.flip(operation)).toMatchObject({ _tag: "TransportError", reason: "Closed" })
      }
    }))

  it.effect("in the 2026 era, the first subscribe after a reconnect listens", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* reconnect
      yield* client.subscribe("file:///a")
      const listens = yield* receivedWith("subscriptions/listen")
      expect(listens.map((listen) => (listen as JsonRpc.Request).params?.notifications)).toEqual([
        { resourceSubscriptions: ["file:///a"] }
      ])
    }).pipe(Effect.provide(clientLayer({
      era: "modern",
      reconnect: { schedule: Schedule.spaced("1 second") },
      capabilities: { resources: { subscribe: true } }
    }))))

  it.effect("in the 2026 era, a subscribe first used after the close fails with the session's typed error", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        clientLayer({ era: "modern", capabilities: { resources: { subscribe: true } } }),
        scope
      )
      const client = Context.get(context, McpClient.McpClient)
      expect((yield* client.initialized).protocolVersion).toBe(McpSchema.MODERN_PROTOCOL_VERSION)
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.flip(client.subscribe("file:///a"))).toMatchObject({
        _tag: "TransportError",
        reason: "Closed"
      })
    }))
})
