import { FetchHttpClient } from "@effect/platform"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { HttpTransport } from "../src/index.js"
import { connections, peer, resource } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"

const traceHeaders = ["traceparent", "b3"]

describe("HttpTransport headers for browsers", () => {
  it.scopedLive("sends no trace propagation headers by default", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const client = yield* peer(yield* (yield* connections({ url: server.url })))
      yield* client.initialize
      yield* client.request("tools/list")
      expect(server.requests.length).toBeGreaterThan(1)
      for (const request of server.requests) {
        for (const name of traceHeaders) expect(request.headers[name]).toBeUndefined()
      }
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("sends them with tracePropagation: true", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const client = yield* peer(yield* (yield* connections({ url: server.url, tracePropagation: true })))
      yield* client.initialize
      for (const name of traceHeaders) expect(typeof server.requests[0]!.headers[name]).toBe("string")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  // what a browser's fetch rejects with when CORS refuses a request
  const blockingClient = (attempts: { count: number }) =>
    Layer.succeed(
      HttpClient.HttpClient,
      HttpClient.make((request) =>
        Effect.suspend(() => {
          attempts.count++
          return Effect.fail(
            new HttpClientError.RequestError({ request, reason: "Transport", cause: new TypeError("Failed to fetch") })
          )
        })
      )
    )

  it.effect("a request blocked before any answer ends the client at once with a TransportError naming the headers", () =>
    Effect.gen(function*() {
      const attempts = { count: 0 }
      const fiber = yield* McpClient.McpClient.pipe(
        Effect.flatMap((client) => client.initialized),
        Effect.provide(
          McpClient.layer({ clientInfo: { name: "t", version: "1" } }).pipe(
            Layer.provide(HttpTransport.layer({ url: "https://mcp.example.com/mcp", tracePropagation: true })),
            Layer.provide(blockingClient(attempts))
          )
        ),
        Effect.flip,
        Effect.fork
      )
      // without fail-fast the reconnect schedule would try again during this minute
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TransportError")
      expect(error.message).toMatch(/POST https:\/\/mcp\.example\.com\/mcp was blocked \(CORS or network\)/)
      expect(error.message).toMatch(/content-type, traceparent, b3/)
      // the era probe (blocked: read as a legacy server) and initialize (blocked: the end), no retry loop
      expect(attempts.count).toBe(2)
    }))
})
