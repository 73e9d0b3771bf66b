import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Discovery, UrlPolicy } from "../src/index.js"
import * as Http from "../src/internal/http.js"
import { fakeHttp, type Route } from "./fixtures/fakeHttp.js"

const server = "https://mcp.example.com/mcp"
const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

const found: Route = (r) => {
  if (r.url === prmUrl) return { json: { resource: server, authorization_servers: ["https://auth.example.com"] } }
  if (r.url === "https://auth.example.com/.well-known/oauth-authorization-server") {
    return {
      json: {
        issuer: "https://auth.example.com",
        authorization_endpoint: "https://auth.example.com/a",
        token_endpoint: "https://auth.example.com/t"
      }
    }
  }
}

const traceHeaders = ["traceparent", "b3"]

describe("OAuth HTTP as browsers need it", () => {
  it.effect("discovery sends no trace propagation headers by default", () =>
    Effect.gen(function*() {
      const http = fakeHttp(found)
      yield* Discovery.discover({ serverUrl: server, policy: UrlPolicy.strict }).pipe(Effect.provide(http.layer))
      expect(http.seen).toHaveLength(2)
      for (const seen of http.seen) for (const name of traceHeaders) expect(seen.headers[name]).toBeUndefined()
    }))

  it.effect("sends them when tracePropagation is set", () =>
    Effect.gen(function*() {
      const http = fakeHttp(found)
      const client = yield* Http.make(UrlPolicy.strict, { tracePropagation: true }).pipe(Effect.provide(http.layer))
      const json = yield* client.getJson(new URL(prmUrl), "protected-resource metadata")
      expect(Option.isSome(json)).toBe(true)
      for (const name of traceHeaders) expect(typeof http.seen[0]!.headers[name]).toBe("string")
    }))

  it.effect("an opaque redirect (status 0) in discovery is a typed error; nothing is guessed or fetched after it", () =>
    Effect.gen(function*() {
      const http = fakeHttp((r) => (r.url === prmUrl ? { opaque: true } : undefined))
      const error = yield* Discovery.discover({ serverUrl: server, policy: UrlPolicy.strict }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error._tag).toBe("OAuthError")
      expect(error.reason).toBe("Discovery")
      expect(error.message).toMatch(/opaque redirect/)
      expect(http.urls()).toEqual([`GET ${prmUrl}`])
    }))

  it.effect("an opaque answer from an OAuth endpoint is a typed error, not a defect", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => ({ opaque: true }))
      const client = yield* Http.make(UrlPolicy.strict).pipe(Effect.provide(http.layer))
      const error = yield* Effect.flip(Effect.tryPromise({
        try: () => client.fetch("https://auth.example.com/token", { method: "POST", body: "grant_type=x" }),
        catch: (e) => e
      }))
      expect(String((error as { message?: string }).message ?? error)).toMatch(/opaque redirect/)
    }))
})
