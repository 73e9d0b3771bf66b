/**
 * Protocol 2026-07-28 over Streamable HTTP against the official SDK v2
 * server, which checks every header against the body (-32020 HeaderMismatch
 * on any difference): the headers, `x-mcp-header` parameters, era detection
 * on 4xx, cancellation by closing the stream, and the listen stream.
 */
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpClient, McpError, type McpSchema, RequestHeaders } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as http from "node:http"
import { HttpTransport } from "../src/index.js"
import { connections, peer, realSleep, resource, resultOf, routeOf, waitFor } from "./fixtures/harness.js"
import { listenLoopback } from "./fixtures/loopback.js"
import { startSdkServer } from "./fixtures/sdkServer.js"
import { MODERN, startSdkV2Server } from "./fixtures/sdkV2Server.js"

const meta = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "transport-test", version: "0.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {}
}
const modern = (params: Record<string, unknown> = {}) => ({ ...params, _meta: { ...meta, ...(params._meta ?? {}) } })

const errorOf = (response: JsonRpc.Response | JsonRpc.Malformed) =>
  !JsonRpc.isMalformed(response) && "error" in response ? response.error : undefined

const posts = <R extends { readonly method: string; readonly body: any }>(requests: ReadonlyArray<R>, method: string) =>
  requests.filter((r) => r.method === "POST" && r.body?.method === method)

describe("HttpTransport in protocol 2026-07-28 (official SDK v2 server)", () => {
  it.scopedLive("every request carries the version, Mcp-Method and Mcp-Name, and no session id", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const client = yield* peer(yield* (yield* connections({ url: server.url })))
      const discover = resultOf(yield* client.request("server/discover", modern()))
      expect(discover.supportedVersions).toContain(MODERN)
      const tools = resultOf(yield* client.request("tools/list", modern()))
      expect(tools.tools.map((t: McpSchema.Tool) => t.name)).toContain("echo")
      const call = resultOf(yield* client.request("tools/call", modern({ name: "echo", arguments: { text: "hi" } })))
      expect(call.content).toEqual([{ type: "text", text: "hi" }])
      const read = resultOf(yield* client.request("resources/read", modern({ uri: "test://counter" })))
      expect(read.contents[0].text).toBe("1")

      const sent = server.requests.filter((r) => r.method === "POST")
      expect(sent.map((r) => r.headers["mcp-method"])).toEqual([
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/read"
      ])
      expect(sent.map((r) => r.headers["mcp-name"])).toEqual([undefined, undefined, "echo", "test://counter"])
      for (const post of sent) {
        expect(post.headers["mcp-protocol-version"]).toBe(MODERN)
        expect(post.headers["mcp-session-id"]).toBeUndefined()
      }
      // no GET stream, no DELETE
      expect(server.requests.every((r) => r.method === "POST")).toBe(true)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("the era comes from the send options, never from the message: a request whose _meta names 2026-07-28, sent without them, goes out as a 2025-era POST", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const connection = yield* (yield* connections({ url: server.url }))
      // the message alone says 2026-07-28; the session's codec said nothing
      yield* Effect.either(connection.send(JsonRpc.request(1, "tools/list", modern())))
      // the same message with what the codec says about it
      const listed = JsonRpc.request(2, "tools/list", modern())
      yield* connection.send(listed, routeOf(listed))
      const sent = posts(server.requests, "tools/list")
      expect(sent.map((r) => r.headers["mcp-protocol-version"])).toEqual([undefined, MODERN])
      expect(sent.map((r) => r.headers["mcp-method"])).toEqual([undefined, "tools/list"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("x-mcp-header arguments go out as Mcp-Param-* once the client registered the tool list", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const requestHeaders = yield* RequestHeaders.make
      const next = yield* connections({ url: server.url })
      // the session computes each message's `Mcp-*` headers with the app's RequestHeaders and hands them over
      const client = yield* peer(yield* next, requestHeaders)
      const args = { region: "eu west", priority: 3, query: "SELECT 1" }
      // unregistered: the server misses the header and refuses the call
      const refused = errorOf(yield* client.request("tools/call", modern({ name: "regional", arguments: args })))
      expect(refused?.code).toBe(-32020)

      const listed = resultOf(yield* client.request("tools/list", modern())).tools as ReadonlyArray<McpSchema.Tool>
      yield* requestHeaders.register(listed)
      const call = resultOf(yield* client.request("tools/call", modern({ name: "regional", arguments: args })))
      expect(call.content).toEqual([{ type: "text", text: "eu west/3" }])
      const last = posts(server.requests, "tools/call").at(-1)!
      expect(last.headers["mcp-param-region"]).toBe("eu west")
      expect(last.headers["mcp-param-priority"]).toBe("3")
      expect(last.headers["mcp-param-query"]).toBeUndefined()
      // a value that is no plain header value travels in Base64, and the server reads it back
      const wide = { ...args, region: " Zürich " }
      const encoded = resultOf(yield* client.request("tools/call", modern({ name: "regional", arguments: wide })))
      expect(encoded.content).toEqual([{ type: "text", text: " Zürich /3" }])
      expect(posts(server.requests, "tools/call").at(-1)!.headers["mcp-param-region"]).toBe(
        `=?base64?${Buffer.from(" Zürich ").toString("base64")}?=`
      )
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a modern server's refusal on 400 is that request's answer (-32022 with the versions it speaks)", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const client = yield* peer(yield* (yield* connections({ url: server.url })))
      const error = errorOf(
        yield* client.request(
          "server/discover",
          modern({ _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } })
        )
      )
      expect(error?.code).toBe(McpError.ErrorCode.UnsupportedProtocolVersion)
      expect((error?.data as { supported?: unknown }).supported).toEqual([MODERN])
      // and the legacy handshake is refused the same way
      const init = errorOf(yield* client.initialize)
      expect(init?.code).toBe(McpError.ErrorCode.UnsupportedProtocolVersion)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a legacy server's 400 to a modern request is a TransportError with the status, not an answer", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const client = yield* peer(yield* (yield* connections({ url: server.url })))
      const exit = yield* Effect.exit(client.request("server/discover", modern()))
      expect(exit).toStrictEqual(
        Exit.fail(expect.objectContaining({ _tag: "TransportError", reason: "Http", status: 400 }))
      )
      // the connection lives on: the session falls back to initialize on it
      const init = resultOf(yield* client.initialize)
      expect(init.protocolVersion).toBe("2025-11-25")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("cancelling closes the request's stream: the server stops, and nothing is posted", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const client = yield* peer(yield* (yield* connections({ url: server.url })))
      const id = 41
      const call = JsonRpc.request(
        id,
        "tools/call",
        modern({ name: "slow", arguments: {}, _meta: { progressToken: "p" } })
      )
      yield* client.connection.send(call, routeOf(call))
      yield* waitFor("the slow call to run", () => server.running() === 1)
      yield* waitFor(
        "its progress",
        () => client.received.some((m) => "method" in m && m.method === "notifications/progress")
      )
      // what the session does when it gives up on the request (the 2026-07-28 era: no notice)
      client.connection.cancel!(id)
      yield* waitFor("the server to see the cancellation", () => server.cancelled.length === 1)
      expect(posts(server.requests, "notifications/cancelled")).toEqual([])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("subscriptions/listen: notifications arrive on its stream, which is posted again when it drops, until the request is cancelled", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const client = yield* peer(
        yield* (yield* connections({ url: server.url, sseReconnect: Schedule.spaced("10 millis") }))
      )
      const listChanged = () =>
        client.received.filter((m) => "method" in m && m.method === "notifications/tools/list_changed").length
      const listen = JsonRpc.request(7, "subscriptions/listen", modern({ notifications: { toolsListChanged: true } }))
      yield* client.connection.send(listen, routeOf(listen))
      yield* waitFor("the listen stream", () => server.requests.length === 1 && server.running() === 0)
      yield* waitFor(
        "the acknowledgement",
        () => client.received.some((m) => "method" in m && m.method === "notifications/subscriptions/acknowledged")
      )
      server.notify.toolsChanged()
      yield* waitFor("a list change", () => listChanged() === 1)

      server.dropStreams()
      yield* waitFor(
        "the listen request posted again",
        () => posts(server.requests, "subscriptions/listen").length === 2
      )
      yield* waitFor(
        "a second acknowledgement",
        () =>
          client.received.filter((m) => "method" in m && m.method === "notifications/subscriptions/acknowledged")
            .length ===
            2
      )
      server.notify.toolsChanged()
      yield* waitFor("a list change on the new stream", () => listChanged() === 2)
      const again = posts(server.requests, "subscriptions/listen")[1]!
      expect(again.body.id).toBe(7)
      expect(again.headers["mcp-method"]).toBe("subscriptions/listen")

      // cancelling the request closes the stream posted again, and it is not posted again
      client.connection.cancel!(7)
      yield* realSleep(200)
      server.notify.toolsChanged()
      yield* realSleep(200)
      expect(listChanged()).toBe(2)
      expect(posts(server.requests, "subscriptions/listen")).toHaveLength(2)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a modern request answered 202 without a body fails at once (there is no GET stream to answer it)", () =>
    Effect.gen(function*() {
      const server = yield* resource(async () => {
        const listening = await listenLoopback(http.createServer((_req, res) => res.writeHead(202).end()))
        return { ...listening, url: `http://127.0.0.1:${listening.port}/mcp` }
      })
      const client = yield* peer(yield* (yield* connections({ url: server.url })))
      const exit = yield* Effect.exit(client.request("tools/list", modern()))
      expect(exit).toStrictEqual(
        Exit.fail(expect.objectContaining({ _tag: "TransportError", reason: "Http", status: 202 }))
      )
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("McpClient on HttpTransport.layer: x-mcp-header calls and resource updates end to end", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "http-2026", version: "1.0.0" } }).pipe(
          Layer.provide(HttpTransport.layer({ url: server.url })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const client = context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service
      expect((yield* client.initialized).protocolVersion).toBe(MODERN)
      expect((yield* client.listTools).map((t) => t.name)).toContain("regional")
      const result = yield* client.callTool({ name: "regional", arguments: { region: "ap-south", query: "q" } })
      expect(result.content).toEqual([{ type: "text", text: "ap-south/-" }])
      expect(posts(server.requests, "tools/call").at(-1)!.headers["mcp-param-region"]).toBe("ap-south")

      const updates = yield* client.subscribeResourceUpdates
      yield* client.subscribe("test://counter")
      server.notify.resourceUpdated("test://counter")
      const update = yield* Stream.runHead(updates)
      expect(update._tag === "Some" && update.value.uri).toBe("test://counter")
      expect(posts(server.requests, "subscriptions/listen").at(-1)!.body.params.notifications.resourceSubscriptions)
        .toEqual(["test://counter"])
      expect(server.requests.some((r) => r.method !== "POST" || r.headers["mcp-session-id"] !== undefined)).toBe(false)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a 307 to another origin keeps the Mcp-* headers (they mirror the body that goes along)", () =>
    Effect.gen(function*() {
      const server = yield* resource(startSdkV2Server)
      const front = yield* resource(async () => {
        const listening = await listenLoopback(
          http.createServer((_req, res) =>
            res.writeHead(307, { location: server.url.replace("127.0.0.1", "localhost") }).end()
          )
        )
        return { ...listening, url: `http://127.0.0.1:${listening.port}/mcp` }
      })
      const requestHeaders = yield* RequestHeaders.make
      const client = yield* peer(yield* (yield* connections({ url: front.url })), requestHeaders)
      yield* requestHeaders.register(resultOf(yield* client.request("tools/list", modern())).tools)
      const call = resultOf(
        yield* client.request("tools/call", modern({ name: "regional", arguments: { region: "eu", query: "q" } }))
      )
      expect(call.content).toEqual([{ type: "text", text: "eu/-" }])
      const arrived = posts(server.requests, "tools/call")[0]!
      expect([arrived.headers["mcp-method"], arrived.headers["mcp-name"], arrived.headers["mcp-param-region"]]).toEqual(
        [
          "tools/call",
          "regional",
          "eu"
        ]
      )
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
