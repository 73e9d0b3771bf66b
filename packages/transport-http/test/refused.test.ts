// A server that is not there: the first connection says so, with the cause.
import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { HttpTransport } from "../src/index.js"
import { awaitSleepUntil, connections, peer } from "./fixtures/harness.js"

/** A loopback port nobody listens on (bound, then released). */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
)

describe("HttpTransport: connection refused", () => {
  for (const [name, layer] of [["fetch", FetchHttpClient.layer], ["undici", NodeHttpClient.layerUndici]] as const) {
    it.scopedLive(`${name}: initialize fails with a Connect TransportError naming ECONNREFUSED`, () =>
      Effect.gen(function*() {
        const port = yield* closedPort
        const next = yield* connections({ url: `http://127.0.0.1:${port}/mcp?key=secret` })
        const client = yield* peer(yield* next)
        const error = yield* Effect.flip(client.initialize)
        expect(error).toBeInstanceOf(McpError.TransportError)
        expect(error).toMatchObject({ reason: "Connect", phase: "post" })
        expect(error.message).toContain("connection refused (ECONNREFUSED)")
        expect(error.message).toContain(`127.0.0.1:${port}/mcp`)
        expect(error.message).not.toContain("secret")
      }).pipe(Effect.provide(layer)))
  }

  it.scoped("McpClient: a refused first connection closes the session within the first-connect budget, naming ECONNREFUSED", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "refused", version: "1.0.0" }, prefetch: false }).pipe(
          Layer.provide(HttpTransport.layer({ url: `http://127.0.0.1:${port}/mcp` })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const mcp = context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service
      const initialized = yield* Effect.fork(Effect.flip(mcp.initialized))
      // the default first-connect budget: 100, 200, 400 ms (not the 8-attempt reconnect schedule)
      for (const at of [100, 300, 700]) {
        yield* awaitSleepUntil(at)
        yield* TestClock.setTime(at)
      }
      const error = yield* Fiber.join(initialized)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error.message).toContain("connection refused (ECONNREFUSED)")
    }))
})
