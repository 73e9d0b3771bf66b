// ResponseCache (core) over a real HTTP server that goes away: stale-if-error and fail-fast tool calls.
import { FetchHttpClient } from "@effect/platform"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, McpError, ResponseCache } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import { HttpTransport } from "../src/index.js"
import { MODERN, startSdkV2Server } from "./fixtures/sdkV2Server.js"

const fast = Schedule.spaced("10 millis").pipe(Schedule.intersect(Schedule.recurs(5)))

describe("ResponseCache over HttpTransport", () => {
  it.scopedLive(
    "the server stopped: listTools answers from the cache flagged offline and stale, callTool fails fast with ServerUnavailable",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.promise(startSdkV2Server)
        let closed = false
        yield* Effect.addFinalizer(() => closed ? Effect.void : Effect.promise(() => server.close()))
        const context = yield* Layer.build(
          McpClient.layer({ clientInfo: { name: "cache-e2e", version: "1.0.0" }, prefetch: false, server: "v2" }).pipe(
            Layer.provide(HttpTransport.layer({ url: server.url, reconnect: { schedule: fast }, sseReconnect: fast })),
            // the SDK server's default hints: ttlMs 0, private, so an identity is needed to keep them
            Layer.provide(ResponseCache.layer({ identity: Redacted.make("user-1") })),
            Layer.provide(Layer.merge(KeyValueStore.layerMemory, FetchHttpClient.layer))
          )
        )
        const client = context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service
        expect((yield* client.initialized).protocolVersion).toBe(MODERN)
        const first = yield* ResponseCache.cached(client.listTools)
        expect(first.fromCache).toBe(false)
        expect(first.value.map((t) => t.name)).toContain("echo")

        yield* Effect.promise(() => server.close())
        closed = true
        const started = Date.now()
        const offline = yield* ResponseCache.cached(client.listTools)
        expect(offline).toMatchObject({ fromCache: true, offline: true, stale: true })
        expect(offline.value.map((t) => t.name)).toEqual(first.value.map((t) => t.name))
        const error = yield* Effect.flip(client.callTool({ name: "echo", arguments: { text: "hi" } }))
        expect(error).toBeInstanceOf(McpError.ServerUnavailable)
        expect(error).toMatchObject({ server: "v2", method: "tools/call" })
        expect(error.message).toContain("\"v2\"")
        expect(Date.now() - started).toBeLessThan(3_000)
      }),
    20_000
  )
})
