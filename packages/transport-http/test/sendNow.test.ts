// A request's POST started from the caller's code (`Connection.sendNow`): no fiber of the session's own waits
// for the server to take it, and what `send` would fail with is reported to the request.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpClient, McpError, McpTransport } from "@mcp-effect/core"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { HttpAuth, HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, holdingToolCalls, peer, resource, resultOf, waitFor } from "./fixtures/harness.js"

/** The HTTP transport, counting the requests its connections took through `sendNow`. */
const counted = (url: string, taken: { count: number }) =>
  Layer.effect(
    McpTransport.McpTransport,
    Effect.map(HttpTransport.make({ url, reconnect: { schedule: Schedule.stop } }), (transport) => ({
      connections: Stream.map(transport.connections, (connection): McpTransport.Connection => ({
        ...connection,
        sendNow: (message, options) => {
          const sent = connection.sendNow?.(message, options) ?? false
          if (sent) taken.count++
          return sent
        }
      }))
    }))
  )

const client = (url: string, taken: { count: number }) =>
  Layer.build(
    McpClient.layer({ clientInfo: { name: "send-now", version: "1.0.0" }, prefetch: false }).pipe(
      Layer.provide(counted(url, taken)),
      Layer.provide(FetchHttpClient.layer)
    )
  ).pipe(Effect.map((context) => context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service))

describe("HttpTransport: sendNow", () => {
  it.scopedLive("the session's requests go out through sendNow; a POST that fails fails its request with the typed error", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const taken = { count: 0 }
      const mcp = yield* client(server.url, taken)
      yield* mcp.initialized
      const before = taken.count
      expect((yield* mcp.callTool({ name: "count" })).isError).not.toBe(true)
      // (the call may list the tools first)
      expect(taken.count).toBeGreaterThan(before)
      const ok = taken.count
      server.faults.htmlFor = "tools/call"
      const error = yield* Effect.flip(mcp.callTool({ name: "count" }))
      expect(taken.count).toBe(ok + 1)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error).toMatchObject({ reason: "Http", phase: "post", status: 200 })
      // the connection is still good
      yield* mcp.ping
    }))

  it.scopedLive("reports a failed POST to onFailure; without onFailure it sends nothing", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const sendNow = client.connection.sendNow!
      const posts = () => server.requests.filter((r) => r.body?.method === "tools/list").length
      expect(sendNow(JsonRpc.request(40, "tools/list"))).toBe(false)
      server.faults.htmlFor = "tools/list"
      const failed = yield* Deferred.make<McpTransport.ConnectionError>()
      expect(sendNow(JsonRpc.request(41, "tools/list"), {
        onFailure: (error) => Deferred.unsafeDone(failed, Effect.succeed(error))
      }))
        .toBe(true)
      const error = yield* Deferred.await(failed)
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Http", phase: "post", status: 200 })
      expect(posts()).toBe(1)
      expect(resultOf(yield* client.request("ping"))).toEqual({})
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("cancel aborts the request's POST while it waits for headers; the notice the session sends still goes out", () =>
    Effect.gen(function*() {
      const { client, server } = yield* holdingToolCalls
      const reported: Array<McpTransport.ConnectionError> = []
      expect(client.connection.sendNow!(JsonRpc.request(7, "tools/call", { name: "count" }), {
        onFailure: (e) => reported.push(e)
      }))
        .toBe(true)
      yield* waitFor("the held POST", () => server.requests.some((r) => r.body?.method === "tools/call"))
      const aborted = server.aborted()
      // what the session does when it gives up on the request (the 2025 era)
      client.connection.cancel!(7)
      yield* waitFor("the POST to be aborted", () => server.aborted() === aborted + 1)
      yield* client.send("notifications/cancelled", { requestId: 7, reason: "timeout" })
      expect(server.requests.map((r) => r.body)).toContainEqual(
        expect.objectContaining({ method: "notifications/cancelled", params: { requestId: 7, reason: "timeout" } })
      )
      // given up by the caller: nothing to report
      expect(reported).toEqual([])
      expect(resultOf(yield* client.request("ping"))).toEqual({})
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a POST that dies (a bug in an auth hook) fails its request at once with a typed error; the defect is logged", () => {
    const logged: Array<string> = []
    const logger = Logger.make(({ cause, message }) => {
      logged.push(`${[message].flat().join(" ")} ${Cause.pretty(cause)}`)
    })
    return Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const broken = { on: false }
      const auth = Layer.succeed(HttpAuth.HttpAuth, {
        headers: () => broken.on ? Effect.dieMessage("hook bug") : Effect.succeed({}),
        onChallenge: () => Effect.succeed("fail" as const)
      })
      const next = yield* connections({ url: server.url }).pipe(Effect.provide(auth))
      const client = yield* peer(yield* next)
      yield* client.initialize
      broken.on = true
      const failed = yield* Deferred.make<McpTransport.ConnectionError>()
      expect(
        client.connection.sendNow!(
          JsonRpc.request(9, "tools/list"),
          { onFailure: (e) => Deferred.unsafeDone(failed, Effect.succeed(e)) }
        )
      )
        .toBe(true)
      expect(yield* Deferred.await(failed)).toMatchObject({ _tag: "TransportError", reason: "Write", phase: "post" })
      yield* waitFor("the defect to be logged", () => logged.some((line) => line.includes("hook bug")))
      expect(logged.filter((line) => line.includes("a send died"))).toHaveLength(1)
      broken.on = false
      expect(resultOf(yield* client.request("ping"))).toEqual({})
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
  })
})
