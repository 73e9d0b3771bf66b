// Request timeouts while a POST waits for its response headers (a JSON-mode server running a long tool).
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpClient, McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import { HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { holdingToolCalls, resource, resultOf, waitFor } from "./fixtures/harness.js"

const client = (url: string) =>
  Layer.build(
    McpClient.layer({ clientInfo: { name: "timeouts", version: "1.0.0" }, prefetch: false }).pipe(
      Layer.provide(HttpTransport.layer({ url, reconnect: { schedule: Schedule.stop } })),
      Layer.provide(FetchHttpClient.layer)
    )
  ).pipe(Effect.map((context) => context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service))

describe("HttpTransport: a POST waiting for its headers", () => {
  it.scopedLive("is aborted when its send is interrupted; the connection then carries notifications/cancelled", () =>
    Effect.gen(function*() {
      const { client, server } = yield* holdingToolCalls
      const sending = yield* Effect.fork(client.connection.send(JsonRpc.request(7, "tools/call", { name: "count" })))
      yield* waitFor("the held POST", () => server.requests.some((r) => r.body?.method === "tools/call"))
      yield* Fiber.interrupt(sending)
      yield* waitFor("the POST to be aborted", () => server.aborted() === 1)
      yield* client.send("notifications/cancelled", { requestId: 7, reason: "timeout" })
      expect(server.requests.at(-1)!.body).toMatchObject({
        method: "notifications/cancelled",
        params: { requestId: 7 }
      })
      expect(resultOf(yield* client.request("ping"))).toEqual({})
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  for (const option of ["timeout", "maxTotalTimeout"] as const) {
    it.scoped(`McpClient: ${option} fires while the POST waits; the POST is aborted and the server told (TestClock)`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer({ get405: true, responseMode: "json" }))
        const mcp = yield* client(server.url)
        yield* mcp.initialized
        server.faults.holdMethod = "tools/call"
        const call = yield* Effect.fork(mcp.callTool({ name: "count" }, { [option]: "2 seconds" }))
        yield* waitFor("the held POST", () => server.requests.some((r) => r.body?.method === "tools/call"))
        yield* TestClock.adjust("2 seconds")
        const error = yield* Fiber.join(call).pipe(Effect.flip)
        expect(error).toBeInstanceOf(McpError.RequestTimeout)
        yield* waitFor("the POST to be aborted", () => server.aborted() === 1)
        yield* waitFor(
          "notifications/cancelled",
          () => server.requests.some((r) => r.body?.method === "notifications/cancelled")
        )
        const id = server.requests.find((r) => r.body?.method === "tools/call")!.body.id
        expect(server.requests.find((r) => r.body?.method === "notifications/cancelled")!.body.params.requestId).toBe(
          id
        )
        yield* mcp.ping
      }))
  }
})
