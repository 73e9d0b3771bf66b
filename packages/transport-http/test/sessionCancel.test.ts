// A call the client gives up on, through the session: the session asks the transport to close the call's
// stream (`Connection.cancel`) and tells the server as its era does; the transport reads no message for it.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { resource, waitFor } from "./fixtures/harness.js"
import { MODERN, startSdkV2Server } from "./fixtures/sdkV2Server.js"

const clientOf = (url: string) =>
  Layer.build(
    McpClient.layer({ clientInfo: { name: "cancel-test", version: "1.0.0" }, prefetch: false }).pipe(
      Layer.provide(HttpTransport.layer({ url }))
    )
  ).pipe(Effect.map(Context.get(McpClient.McpClient)))

describe("a call the session gives up on, over Streamable HTTP", () => {
  it.scopedLive("2026-07-28: interrupting the call closes its stream, which is the cancellation; nothing is posted", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const client = yield* clientOf(server.url)
      expect((yield* client.initialized).protocolVersion).toBe(MODERN)
      const call = yield* Effect.fork(
        client.callTool({ name: "slow", arguments: {} }, { onProgress: () => Effect.void })
      )
      yield* waitFor("the slow call to run", () => server.running() === 1)
      yield* Fiber.interrupt(call)
      yield* waitFor("the server to see the cancellation", () => server.cancelled.length === 1)
      expect(server.requests.filter((r) => r.body?.method === "notifications/cancelled")).toEqual([])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("2025-11-25: interrupting the call aborts its POST and posts notifications/cancelled", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true, responseMode: "json" }))
      const client = yield* clientOf(server.url)
      expect((yield* client.initialized).protocolVersion).toBe("2025-11-25")
      server.faults.holdMethod = "tools/call"
      const call = yield* Effect.fork(client.callTool({ name: "count" }))
      yield* waitFor("the held POST", () => server.requests.some((r) => r.body?.method === "tools/call"))
      yield* Fiber.interrupt(call)
      yield* waitFor("the POST to be aborted", () => server.aborted() === 1)
      yield* waitFor(
        "notifications/cancelled",
        () => server.requests.some((r) => r.body?.method === "notifications/cancelled")
      )
      const id = server.requests.find((r) => r.body?.method === "tools/call")!.body.id
      expect(server.requests.find((r) => r.body?.method === "notifications/cancelled")!.body.params).toEqual({
        requestId: id,
        reason: "cancelled by the client"
      })
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
