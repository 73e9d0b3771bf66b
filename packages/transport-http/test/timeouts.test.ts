// Request timeouts while a POST waits for its response headers (a JSON-mode server running a long tool).
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, peer, resource, resultOf, waitFor } from "./fixtures/harness.js"

describe("HttpTransport: a POST waiting for its headers", () => {
  it.scopedLive("is aborted when its send is interrupted; the connection then carries notifications/cancelled", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true, responseMode: "json" }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.holdMethod = "tools/call"
      const sending = yield* Effect.fork(client.connection.send(JsonRpc.request(7, "tools/call", { name: "count" })))
      yield* waitFor("the held POST", () => server.requests.some((r) => r.body?.method === "tools/call"))
      yield* Fiber.interrupt(sending)
      yield* waitFor("the POST to be aborted", () => server.aborted() === 1)
      yield* client.send("notifications/cancelled", { requestId: 7, reason: "timeout" })
      expect(server.requests.at(-1)!.body).toMatchObject({ method: "notifications/cancelled", params: { requestId: 7 } })
      expect(resultOf(yield* client.request("ping"))).toEqual({})
    }).pipe(Effect.provide(FetchHttpClient.layer)))

})
