// A server that is not there: the first connection says so, with the cause.
import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { connections, peer } from "./fixtures/harness.js"

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
})
