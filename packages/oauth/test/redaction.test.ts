// A key in the MCP server URL's query and an authorization code in a redirect reach no error
// message and no span (in-process fake HTTP, a recording tracer).
import { describe, expect, it } from "@effect/vitest"
import { TestTracer } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Authorizer, Discovery, UrlPolicy } from "../src/index.js"
import { fakeHttp } from "./fixtures/fakeHttp.js"

const key = "api-key-secret-0123456789"
const code = "auth-code-secret-0123456789"
const serverUrl = `https://mcp.example.com/public/mcp?api_key=${key}`

const spansText = (recorder: TestTracer.TestTracer) =>
  JSON.stringify(recorder.spans.map((span) => [span.name, ...span.attributes]))

describe("secrets in URLs", () => {
  it.effect("ResourceMismatch names the server without its query values", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const http = fakeHttp((r) =>
        r.url.includes("oauth-protected-resource")
          ? {
            json: {
              resource: `https://evil.example.com/mcp?token=${key}`,
              authorization_servers: ["https://a.example.com"]
            }
          }
          : undefined
      )
      const error = yield* Discovery.discover({ serverUrl, policy: UrlPolicy.strict }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error.reason).toBe("ResourceMismatch")
      expect(error.message).toContain("not for https://mcp.example.com/public/mcp")
      expect(error.message).not.toContain(key)
      expect(spansText(recorder)).not.toContain(key)
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it.effect("a server without protected-resource metadata: the resource for the authorization server has no key", () =>
    Effect.gen(function*() {
      const http = fakeHttp((r) =>
        r.url === "https://mcp.example.com/.well-known/oauth-authorization-server"
          ? {
            json: {
              issuer: "https://mcp.example.com",
              authorization_endpoint: "https://mcp.example.com/authorize",
              token_endpoint: "https://mcp.example.com/token",
              response_types_supported: ["code"],
              code_challenge_methods_supported: ["S256"]
            }
          }
          : undefined
      )
      const discovered = yield* Discovery.discover({ serverUrl, policy: UrlPolicy.strict }).pipe(
        Effect.provide(http.layer)
      )
      expect(discovered.legacy).toBe(true)
      expect(discovered.resource).toBe("https://mcp.example.com/public/mcp")
    }))

  it.effect("metadata that is not valid names its URL without query values", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const http = fakeHttp((r) =>
        r.url.startsWith("https://mcp.example.com/prm.json") ? { json: { resource: 42 } } : undefined
      )
      const error = yield* Discovery.discover({
        serverUrl,
        policy: UrlPolicy.strict,
        resourceMetadataUrl: `https://mcp.example.com/prm.json?sig=${key}`
      }).pipe(Effect.provide(http.layer), Effect.flip)
      expect(error.message).toContain("prm.json?sig=<redacted>")
      expect(error.message).not.toContain(key)
      const gets = recorder.named("http.client GET")
      expect(gets.length).toBeGreaterThan(0)
      expect(spansText(recorder)).not.toContain(key)
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it.effect("the follow-redirect authorizer's span carries no code from the Location header", () => {
    const recorder = TestTracer.make()
    const redirectUri = "http://127.0.0.1:8976/callback"
    return Effect.gen(function*() {
      const http = fakeHttp((r) =>
        r.url.startsWith("https://as.example.com/authorize")
          ? { status: 302, headers: { location: `${redirectUri}?code=${code}&state=s1` } }
          : undefined
      )
      const context = yield* Layer.build(
        Authorizer.layerFollowRedirect({ redirectUri }).pipe(Layer.provide(http.layer))
      )
      const session = yield* Effect.scoped(Context.get(context, Authorizer.Authorizer).session)
      const params = yield* session.authorize({
        url: new URL("https://as.example.com/authorize?client_id=c&state=s1&code_challenge=x"),
        state: "s1",
        redirectUri
      })
      expect(params.get("code")).toBe(code)
      const [span] = recorder.named("http.client GET")
      expect(span.attributes.get("http.response.header.location")).toBe(
        `${redirectUri}?code=<redacted>&state=<redacted>`
      )
      expect(spansText(recorder)).not.toContain(code)
    }).pipe(Effect.scoped, Effect.withTracer(recorder.tracer))
  })
})
