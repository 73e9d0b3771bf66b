import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import { saysSessionUnknown } from "../src/internal/expiry.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, failureOf, peer, realSleep, resource, waitFor } from "./fixtures/harness.js"

const everyHalfSecond = Schedule.spaced("500 millis").pipe(Schedule.intersect(Schedule.recurs(10)))

describe("HttpTransport when the server forgets the session or goes away", () => {
  it("reads a 400 as an unknown session only when its body says so", () => {
    for (
      const body of [
        // server-everything (the official SDK's example servers)
        `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":3}`,
        `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`,
        "unknown session",
        "Session expired"
      ]
    ) expect(saysSessionUnknown(body)).toBe(true)
    for (
      const body of [
        `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":3}`,
        "Bad Request: Mcp-Session-Id header is required",
        `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: Server already initialized"},"id":null}`,
        ""
      ]
    ) expect(saysSessionUnknown(body)).toBe(false)
  })

  it.scopedLive("a POST answered 400 \"No valid session ID\" (server-everything's answer) ends the connection with SessionExpired", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      server.faults.unknownSession400 = true
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.expire()
      const failed = yield* Effect.flip(client.request("tools/list"))
      expect(failed).toBeInstanceOf(McpError.SessionExpired)
      expect(failed.message).toContain("HTTP 400")
      expect(failureOf(yield* Deferred.await(client.ended))?._tag).toBe("SessionExpired")
      // the next connection starts a new session, sending no stale id
      const second = yield* peer(yield* next)
      yield* second.initialize
      const init = server.requests.filter((r) => r.body?.method === "initialize")
      expect(init).toHaveLength(2)
      expect(init[1]!.headers["mcp-session-id"]).toBeUndefined()
      // no DELETE for the session the server forgot
      expect(server.requests.filter((r) => r.method === "DELETE" && r.headers["mcp-session-id"] === "s1")).toHaveLength(
        0
      )
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a 400 that does not speak of the session stays the request's answer", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.errorFor = { method: "tools/list", status: 400, error: { code: -32602, message: "Invalid params" } }
      const answer = yield* client.request("tools/list")
      expect(answer).toMatchObject({ error: { code: -32602 } })
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("reopening the GET stream answered 400 \"No valid session ID\" ends the connection with SessionExpired", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      server.faults.unknownSession400 = true
      const next = yield* connections({ url: server.url, sseReconnect: Schedule.spaced("10 millis") })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET stream", () => server.push("notifications/one") === 1)
      server.dropGets()
      server.expire()
      expect(failureOf(yield* Deferred.await(client.ended))?._tag).toBe("SessionExpired")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("a GET stream that cannot be reopened because the server is gone ends the connection at the first attempt (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      const next = yield* connections({ url: server.url, sseReconnect: everyHalfSecond })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET stream", () => server.push("notifications/one") === 1)
      yield* Effect.promise(() => server.close())
      // the stream dropped; the first reopen waits for the schedule's delay
      yield* realSleep(50)
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
      yield* TestClock.adjust("500 millis")
      const error = failureOf(yield* Deferred.await(client.ended))
      // refused at the first reopen, not "Exhausted" after ten
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Connect", phase: "get-stream" })
      expect(error?.message).toContain("ECONNREFUSED")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a request that cannot reach the server fails and ends the connection", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* Effect.promise(() => server.close())
      const request = yield* Effect.fork(Effect.flip(client.request("tools/list")))
      const failed = yield* Fiber.join(request)
      expect(failed).toMatchObject({ _tag: "TransportError", reason: "Connect", phase: "post" })
      const ended = yield* Deferred.await(client.ended).pipe(Effect.timeout("5 seconds"), Effect.option)
      expect(Option.map(ended, failureOf)).toEqual(Option.some(failed))
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
