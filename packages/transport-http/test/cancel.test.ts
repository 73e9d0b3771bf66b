import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { Agent } from "undici"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, peer, resource, resultOf, waitFor } from "./fixtures/harness.js"

/** An undici `Agent` allowing 6 connections per origin, as Chromium does over HTTP/1.1. */
const sixConnections = Effect.acquireRelease(
  Effect.sync(() => new Agent({ connections: 6 })),
  (agent) => Effect.promise(() => agent.destroy())
)

const clients = [
  [
    "fetch",
    Layer.merge(
      FetchHttpClient.layer,
      Layer.scoped(
        FetchHttpClient.RequestInit,
        Effect.map(sixConnections, (dispatcher) => ({ dispatcher }) as RequestInit)
      )
    )
  ],
  [
    "undici",
    NodeHttpClient.layerUndiciWithoutDispatcher.pipe(
      Layer.provide(Layer.scoped(NodeHttpClient.Dispatcher, sixConnections))
    )
  ]
] as const

describe("HttpTransport: a cancelled request frees its HTTP connection", () => {
  for (const [name, layer] of clients) {
    it.scopedLive(
      `${name}, 6 connections per origin: 8 cancels of calls the server never answers leave no stream open; a call and an elicitation round trip still succeed`,
      () =>
        Effect.gen(function*() {
          const server = yield* resource(() => startFaultServer())
          const next = yield* connections({ url: server.url })
          const client = yield* peer(yield* next)
          yield* client.initialize
          yield* waitFor("the GET stream", () => server.requests.some((r) => r.method === "GET"))
          // the server leaves cancelled calls unanswered, as the spec allows (the official SDK does)
          server.faults.stallBodies = "tools/call"
          for (let i = 1; i <= 8; i++) {
            const call = yield* Effect.fork(client.request("tools/call", { name: "count", arguments: {} }))
            yield* waitFor(`stalled call ${i}`, () => server.stalledBodies().open === i)
            const id = server.requests.filter((r) => r.body?.method === "tools/call").at(-1)!.body.id
            // what the session does when a call is interrupted or times out (the 2025 era)
            client.connection.cancel!(id)
            yield* client.send("notifications/cancelled", { requestId: id, reason: "cancelled by the user" })
            yield* Fiber.interrupt(call)
          }
          yield* waitFor("every cancelled call's stream to close", () => server.stalledBodies().closed === 8)
          // every cancel reached the server
          expect(server.requests.filter((r) => r.body?.method === "notifications/cancelled")).toHaveLength(8)
          // the GET stream is the only exchange left in progress
          yield* waitFor("only the GET stream in progress", () => server.active() === 1)
          // never more than the GET stream, one stalled call and the notice posting its cancel
          expect(server.maxActive()).toBeLessThanOrEqual(3)

          server.faults.stallBodies = undefined
          expect(resultOf(yield* client.request("tools/call", { name: "count", arguments: {} })).content[0].text)
            .toBe("execution 1")
          // a server-to-client request on the call's stream, answered on a POST of its own
          const ask = yield* Effect.fork(client.request("tools/call", { name: "ask", arguments: {} }))
          yield* waitFor("the elicitation", () =>
            client.received.some((m) =>
              !JsonRpc.isMalformed(m) && JsonRpc.isRequest(m) && m.method === "elicitation/create"
            ))
          const elicitation = client.received.find((m) =>
            !JsonRpc.isMalformed(m) && JsonRpc.isRequest(m) && m.method === "elicitation/create"
          ) as JsonRpc.Request
          yield* client.connection.send(JsonRpc.success(elicitation.id, { action: "accept", content: { name: "Ada" } }))
          const answered = resultOf(yield* Fiber.join(ask))
          expect(JSON.parse(answered.content[0].text)).toEqual({ action: "accept", content: { name: "Ada" } })
        }).pipe(Effect.provide(layer)),
      30_000
    )
  }
})
