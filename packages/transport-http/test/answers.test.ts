// What a POST's HTTP answer means: JSON-RPC errors in non-2xx bodies, content types that are no answer.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpClient, McpError, McpTransport } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, peer, resource, resultOf } from "./fixtures/harness.js"

const unsupported = {
  code: -32022,
  message: "Unsupported protocol version",
  data: { supported: ["2026-07-28"] }
}

describe("HttpTransport: what an answer means", () => {
  for (const nullId of [false, true]) {
    it.scopedLive(`400 with a JSON-RPC error (id ${nullId ? "null" : "of the request"}) is that request's answer`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer({ get405: true }))
        const next = yield* connections({ url: server.url })
        const client = yield* peer(yield* next)
        yield* client.initialize
        server.faults.errorFor = { method: "tools/list", status: 400, error: unsupported, nullId }
        const answer = yield* client.request("tools/list")
        expect(answer).toEqual({ jsonrpc: "2.0", id: 2, error: unsupported })
        server.faults.errorFor = undefined
        expect(resultOf(yield* client.request("ping"))).toEqual({})
        expect(server.requests.filter((r) => r.body?.method === "tools/list")).toHaveLength(1)
      }).pipe(Effect.provide(FetchHttpClient.layer)))
  }

  it.scopedLive("a server that rejects every version: ProtocolError with code and data at once, no fallback, no retry", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      server.faults.errorFor = { method: "initialize", status: 400, error: unsupported }
      const schedule = Schedule.spaced("1 second").pipe(Schedule.intersect(Schedule.recurs(25)))
      const exit = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "t", version: "1" }, prefetch: false }).pipe(
          Layer.provide(HttpTransport.layer({ url: server.url, reconnect: { schedule } })),
          Layer.provide(FetchHttpClient.layer)
        )
      ).pipe(
        Effect.flatMap((context) => (context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service).initialized),
        Effect.exit
      )
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : exit
      expect(error).toBeInstanceOf(McpError.ProtocolError)
      expect(error).toMatchObject({ code: -32022, data: { supported: ["2026-07-28"] } })
      // the message names both sides, so a log line alone explains the refusal
      expect((error as McpError.ProtocolError).message).toMatch(/offered 2025-11-25, the server supports 2026-07-28$/)
      expect(server.requests.filter((r) => r.body?.method === "initialize")).toHaveLength(1)
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0) // no HTTP+SSE fallback
    }))

  it.scopedLive("a 5xx JSON-RPC error for a request is its answer too", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.errorFor = { method: "tools/call", status: 500, error: { code: -32603, message: "boom" } }
      const answer = yield* client.request("tools/call", { name: "count" })
      expect(!JsonRpc.isMalformed(answer) && JsonRpc.isFailure(answer) && answer.error.code).toBe(-32603)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("200 text/html for a request is a typed error at once, not a 202", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.htmlFor = "tools/list"
      const error = yield* Effect.flip(client.request("tools/list"))
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error).toMatchObject({ reason: "Http", phase: "post", status: 200 })
      expect(error.message).toContain("text/html")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("200 text/html for initialize ends the connection with the typed error", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      server.faults.htmlFor = "initialize"
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      const error = yield* Effect.flip(client.initialize)
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Http", status: 200 })
      const ended = yield* McpTransport.incoming(client.connection).pipe(Stream.runDrain, Effect.flip)
      expect(ended).toBe(error)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
