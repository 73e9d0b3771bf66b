import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connections, peer, resource, resultOf, waitFor } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"

const initializeParams = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "handoff-test", version: "0.0.0" }
}

describe("HttpTransport reads no protocol message: the session hands it the version and says when it is ready", () => {
  it.scopedLive("MCP-Protocol-Version comes from Connection.negotiated, the GET stream opens on Connection.ready", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      const connection = client.connection
      // a raw initialize and initialized, without the hand-off
      expect(resultOf(yield* client.request("initialize", initializeParams)).protocolVersion).toBe("2025-11-25")
      yield* client.send("notifications/initialized")
      yield* client.request("ping")
      const unversioned = server.requests.filter((r) => r.body?.method === "ping").at(-1)!
      // the answer to initialize named 2025-11-25, but the transport did not read it
      expect(unversioned.headers["mcp-protocol-version"]).toBeUndefined()
      expect(server.requests.some((r) => r.method === "GET")).toBe(false)

      // the hand-off names another version the server speaks: every later request carries that one
      yield* connection.negotiated!({ protocolVersion: "2025-06-18" })
      yield* client.request("ping")
      const versioned = server.requests.filter((r) => r.body?.method === "ping").at(-1)!
      expect(versioned.headers["mcp-protocol-version"]).toBe("2025-06-18")
      expect(server.requests.some((r) => r.method === "GET")).toBe(false)

      yield* connection.ready!
      yield* waitFor("the GET stream", () => server.requests.some((r) => r.method === "GET"))
      const get = server.requests.find((r) => r.method === "GET")!
      expect(get.headers["mcp-protocol-version"]).toBe("2025-06-18")
      // ready twice opens one stream
      yield* connection.ready!
      yield* client.request("ping")
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(1)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
