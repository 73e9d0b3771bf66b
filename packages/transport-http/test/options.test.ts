import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpError, McpTransport } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { HttpTransport } from "../src/index.js"

const secret = Redacted.make("s3cr3t-value")

const bad: ReadonlyArray<readonly [string, unknown]> = [
  ["not a URL", { url: "not a url" }],
  ["a relative URL", { url: "/mcp" }],
  ["a non-HTTP scheme", { url: "file:///etc/passwd" }],
  ["credentials in the URL", { url: "http://user:pw@127.0.0.1/mcp" }],
  ["no options", undefined],
  ["a header name with a space", { url: "http://127.0.0.1/mcp", headers: { "x bad": "v" } }],
  ["a header value with CRLF", { url: "http://127.0.0.1/mcp", headers: { "x-ok": "a\r\nx-injected: 1" } }],
  ["a secret header value with CRLF", { url: "http://127.0.0.1/mcp", headers: { "x-key": Redacted.make("a\nb") } }],
  ["a non-string header value", { url: "http://127.0.0.1/mcp", headers: { "x-n": 1 } }],
  ["an unknown auth tag", { url: "http://127.0.0.1/mcp", auth: { _tag: "Digest" } }],
  ["an API key header name that is not a token", {
    url: "http://127.0.0.1/mcp",
    auth: { _tag: "ApiKey", header: "x:y", key: secret }
  }],
  ["a plain-string bearer token", { url: "http://127.0.0.1/mcp", auth: { _tag: "Bearer", token: "plain" } }],
  ["a Basic username with ':'", {
    url: "http://127.0.0.1/mcp",
    auth: { _tag: "Basic", username: "a:b", password: secret }
  }],
  ["maxMessageBytes 0", { url: "http://127.0.0.1/mcp", maxMessageBytes: 0 }],
  ["maxMessageBytes NaN", { url: "http://127.0.0.1/mcp", maxMessageBytes: Number.NaN }],
  ["a negative connect timeout", { url: "http://127.0.0.1/mcp", timeouts: { connectMillis: -1 } }],
  ["an infinite total timeout", { url: "http://127.0.0.1/mcp", timeouts: { totalMillis: Infinity } }],
  ["inboundCapacity 0", { url: "http://127.0.0.1/mcp", inboundCapacity: 0 }],
  ["maxRedirects 1.5", { url: "http://127.0.0.1/mcp", maxRedirects: 1.5 }],
  ["maxRetryAfter 'soon'", { url: "http://127.0.0.1/mcp", maxRetryAfter: "soon" }],
  ["sseReconnect not a Schedule", { url: "http://127.0.0.1/mcp", sseReconnect: 5 }],
  ["a negative healthyAfterMillis", { url: "http://127.0.0.1/mcp", reconnect: { healthyAfterMillis: -5 } }]
]

describe("HttpTransport options", () => {
  for (const [what, options] of bad) {
    it.effect(`${what}: a typed TransportError (phase options) from make and layer, no defect`, () =>
      Effect.gen(function*() {
        const fromMake = yield* Effect.exit(HttpTransport.make(options as HttpTransport.Options))
        const fromLayer = yield* Effect.exit(
          Effect.scoped(Layer.build(HttpTransport.layer(options as HttpTransport.Options)))
        )
        for (const exit of [fromMake, fromLayer] as ReadonlyArray<Exit.Exit<unknown, unknown>>) {
          expect(Exit.isFailure(exit)).toBe(true)
          const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
          expect(error).toBeInstanceOf(McpError.TransportError)
          expect((error as McpError.TransportError).phase).toBe("options")
          expect((error as McpError.TransportError).message).not.toContain("s3cr3t")
        }
      }).pipe(Effect.provide(FetchHttpClient.layer)))
  }

  it.effect("valid options build", () =>
    Effect.gen(function*() {
      const transport = yield* HttpTransport.make({
        url: new URL("https://example.com/mcp?key=1"),
        headers: { "x-trace": "a", "x-key": secret },
        auth: { _tag: "Basic", username: "me", password: secret },
        maxMessageBytes: 1024,
        timeouts: { connectMillis: 0, idleMillis: 10, totalMillis: 20 },
        maxRetryAfter: "5 seconds",
        maxRedirects: 0,
        inboundCapacity: 1
      })
      expect(transport.connections).toBeDefined()
      expect(McpTransport.McpTransport.key).toBeDefined()
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
