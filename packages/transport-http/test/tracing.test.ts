// Request spans over real loopback HTTP: the session id the server assigned and the transport's kind
// reach the span, and the HTTP client's own spans are its children.
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, TestTracer } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { HttpTransport } from "../src/index.js"
import { resource } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"

describe("request spans over HTTP", () => {
  it.scopedLive("carry mcp.session.id and network.transport tcp, and parent the HTTP client's spans", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "http-tracing", version: "1.0.0" }, prefetch: false }).pipe(
          Layer.provide(HttpTransport.layer({ url: server.url })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const mcp = Context.get(context, McpClient.McpClient)
      yield* mcp.callTool({ name: "echo", arguments: { text: "hi" } })

      const post = server.requests.find((r) =>
        r.method === "POST" && (r.body as { method?: string })?.method === "tools/call"
      )!
      const sessionId = post.headers["mcp-session-id"]
      expect(typeof sessionId).toBe("string")
      const span = recorder.spans.find((s) => s.name === "mcp.client tools/call")!
      expect(span.attributes.get("mcp.session.id")).toBe(sessionId)
      expect(span.attributes.get("network.transport")).toBe("tcp")
      // the POST that carried the call is traced under the request
      const children = recorder.spans.filter((s) => Option.getOrUndefined(s.parent) === span)
      expect(children.map((s) => s.name)).toContain("http.client POST")
      // the session id is only known after initialize: its span has none
      const initialize = recorder.spans.find((s) => s.name === "mcp.client initialize")!
      expect(initialize.attributes.has("mcp.session.id")).toBe(false)
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it.scopedLive("an API key in the server URL's query reaches no span: url.full and url.query carry <redacted>", () => {
    const recorder = TestTracer.make()
    const key = "api-key-secret-0123456789"
    return Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "http-tracing", version: "1.0.0" }, prefetch: false }).pipe(
          Layer.provide(HttpTransport.layer({ url: `${server.url}?api_key=${key}` })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      yield* Context.get(context, McpClient.McpClient).callTool({ name: "echo", arguments: { text: "hi" } })
      expect(server.requests.length).toBeGreaterThan(0)
      const posts = recorder.named("http.client POST")
      expect(posts.length).toBeGreaterThan(0)
      expect(posts[0].attributes.get("url.full")).toBe(`${server.url}?api_key=<redacted>`)
      expect(posts[0].attributes.get("url.query")).toBe("api_key=<redacted>")
      expect(JSON.stringify(recorder.spans.map((s) => [s.name, ...s.attributes]))).not.toContain(key)
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  // whether the HTTP client makes its span: what it sees of `currentTracerEnabled` while it sends
  const recordingClient = (seen: Array<boolean>) =>
    Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (real) =>
        HttpClient.make((request, _url, _signal, fiber) => {
          seen.push(fiber.getFiberRef(FiberRef.currentTracerEnabled))
          return real.execute(request)
        }))
    ).pipe(Layer.provide(FetchHttpClient.layer))

  const callOnce = (options: { readonly tracePropagation?: boolean } = {}) =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("stateful"))
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "http-tracing", version: "1.0.0" }, prefetch: false }).pipe(
          Layer.provide(HttpTransport.layer({ url: server.url, ...options }))
        )
      )
      yield* Context.get(context, McpClient.McpClient).callTool({ name: "echo", arguments: { text: "hi" } })
    })

  it.scopedLive("without a tracer the HTTP client makes no span of its own (it would reach no one)", () => {
    const seen: Array<boolean> = []
    return callOnce().pipe(
      Effect.provide(recordingClient(seen)),
      Effect.andThen(() => {
        expect(seen.length).toBeGreaterThan(0)
        expect(seen.every((enabled) => !enabled)).toBe(true)
      })
    )
  })

  it.scopedLive("with a tracer, or with tracePropagation, the HTTP client makes its spans", () => {
    const traced: Array<boolean> = []
    const propagated: Array<boolean> = []
    return callOnce().pipe(
      Effect.provide(recordingClient(traced)),
      Effect.withTracer(TestTracer.make().tracer),
      Effect.zipRight(callOnce({ tracePropagation: true }).pipe(Effect.provide(recordingClient(propagated)))),
      Effect.andThen(() => {
        for (const seen of [traced, propagated]) {
          expect(seen.length).toBeGreaterThan(0)
          expect(seen.every((enabled) => enabled)).toBe(true)
        }
      })
    )
  })
})
