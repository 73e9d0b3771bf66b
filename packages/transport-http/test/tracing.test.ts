// Request spans over real loopback HTTP: the session id the server assigned and the transport's kind
// reach the span, and the HTTP client's own spans are its children.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, TestTracer } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
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

      const post = server.requests.find((r) => r.method === "POST" && (r.body as { method?: string })?.method === "tools/call")!
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
})
