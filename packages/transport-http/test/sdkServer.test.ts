import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@mcp-effect/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { connections, peer, resource, resultOf, waitFor } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"

const sessionHeader = (headers: Record<string, unknown>) => headers["mcp-session-id"]

describe("HttpTransport against the official SDK server", () => {
  for (const mode of ["stateful", "stateless", "json"] as const) {
    it.scopedLive(`${mode}: initialize, initialized, tools/list, tools/call`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startSdkServer(mode))
        const next = yield* connections({ url: server.url })
        const client = yield* peer(yield* next)
        const init = resultOf(yield* client.initialize)
        expect(init.protocolVersion).toBe("2025-11-25")
        const tools = resultOf(yield* client.request("tools/list"))
        expect(tools.tools.map((t: { name: string }) => t.name)).toContain("echo")
        const call = resultOf(yield* client.request("tools/call", { name: "echo", arguments: { text: "hi" } }))
        expect(call.content).toEqual([{ type: "text", text: "hi" }])

        const posts = server.requests.filter((r) => r.method === "POST")
        for (const post of posts) {
          expect(post.headers.accept).toBe("application/json, text/event-stream")
          expect(post.headers["content-type"]).toContain("application/json")
        }
        const [initPost, ...later] = posts
        expect(sessionHeader(initPost!.headers)).toBeUndefined()
        expect(initPost!.headers["mcp-protocol-version"]).toBeUndefined()
        for (const post of later) {
          expect(post.headers["mcp-protocol-version"]).toBe("2025-11-25")
          if (mode !== "stateless") expect(typeof sessionHeader(post.headers)).toBe("string")
        }
      }).pipe(Effect.provide(FetchHttpClient.layer)))
  }

  it.scopedLive("stateful: opens the GET stream after initialized, with session and version headers", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET stream", () => server.requests.some((r) => r.method === "GET"))
      const get = server.requests.find((r) => r.method === "GET")!
      const init = server.requests.findIndex((r) => r.body?.method === "notifications/initialized")
      expect(init).toBeGreaterThanOrEqual(0)
      expect(server.requests.indexOf(get)).toBeGreaterThan(init)
      expect(get.headers.accept).toBe("text/event-stream")
      expect(typeof sessionHeader(get.headers)).toBe("string")
      expect(get.headers["mcp-protocol-version"]).toBe("2025-11-25")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("stateless: the GET stream answered 405 is not fatal", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateless"))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET", () => server.requests.some((r) => r.method === "GET"))
      const ping = yield* client.request("ping")
      expect(resultOf(ping)).toEqual({})
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("server notifications and requests on a POST's SSE stream reach the connection", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const notified = resultOf(yield* client.request("tools/call", { name: "notify", arguments: {} }))
      expect(notified.content[0].text).toBe("notified")
      const log = client.received.find((m) =>
        !JsonRpc.isMalformed(m) && "method" in m && m.method === "notifications/message"
      )
      expect(log).toBeDefined()
      // the tool pings the client on its stream and only answers once the pong came back
      const asked = resultOf(yield* client.request("tools/call", { name: "ask", arguments: {} }))
      expect(asked.content[0].text).toBe("pinged")
      expect(client.received.some((m) => !JsonRpc.isMalformed(m) && JsonRpc.isRequest(m) && m.method === "ping")).toBe(
        true
      )
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("resumes a POST stream the server closed early (SSE polling) with Last-Event-ID", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful", { retryInterval: 20 }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const polled = resultOf(yield* client.request("tools/call", { name: "poll", arguments: {} }))
      expect(polled.content[0].text).toBe("polled")
      expect(server.toolExecutions()).toBe(1)
      const resume = server.requests.find((r) => r.method === "GET" && r.headers["last-event-id"] !== undefined)
      expect(resume).toBeDefined()
      const answers = client.received.filter((m) => !JsonRpc.isMalformed(m) && JsonRpc.isResponse(m) && m.id === 2)
      expect(answers).toHaveLength(1)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("sends DELETE with the session id when the connection's scope closes", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const scope = yield* Scope.make()
      const sessionId = yield* Effect.gen(function*() {
        const next = yield* connections({ url: server.url })
        const client = yield* peer(yield* next)
        yield* client.initialize
        return sessionHeader(server.requests.at(-1)!.headers)
      }).pipe(Scope.extend(scope))
      expect(server.sessions()).toBe(1)
      yield* Scope.close(scope, Exit.void)
      const del = server.requests.find((r) => r.method === "DELETE")
      expect(del).toBeDefined()
      expect(sessionHeader(del!.headers)).toBe(sessionId)
      expect(server.sessions()).toBe(0)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("falls back to the 2024-11-05 HTTP+SSE transport", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("legacy"))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      const init = resultOf(yield* client.initialize)
      expect(init.serverInfo.name).toBe("sdk-fixture")
      const call = resultOf(yield* client.request("tools/call", { name: "echo", arguments: { text: "old" } }))
      expect(call.content[0].text).toBe("old")
      const paths = server.requests.map((r) => `${r.method} ${r.path}`)
      expect(paths.slice(0, 3)).toEqual(["POST /mcp", "GET /mcp", "POST /messages"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
