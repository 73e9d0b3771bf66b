import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Discovery, Scopes, UrlPolicy } from "../src/index.js"
import { fakeHttp, type Route } from "./fixtures/fakeHttp.js"

const asMetadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  code_challenge_methods_supported: ["S256"]
})

const discover = (route: Route, options: Partial<Discovery.DiscoverOptions> = {}) => {
  const http = fakeHttp(route)
  return Discovery.discover({ serverUrl: "https://mcp.example.com/public/mcp", policy: UrlPolicy.strict, ...options })
    .pipe(
      Effect.provide(http.layer),
      Effect.either,
      Effect.map((result) => ({ result, urls: http.urls() }))
    )
}

describe("discovery URLs", () => {
  it("protected-resource metadata: challenge, path-inserted, root", () => {
    expect(Discovery.protectedResourceMetadataUrls("https://mcp.example.com/public/mcp").map(String)).toEqual([
      "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
      "https://mcp.example.com/.well-known/oauth-protected-resource"
    ])
    expect(
      Discovery.protectedResourceMetadataUrls("https://mcp.example.com/mcp/", "https://mcp.example.com/meta.json").map(
        String
      )
    ).toEqual([
      "https://mcp.example.com/meta.json",
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
      "https://mcp.example.com/.well-known/oauth-protected-resource"
    ])
    expect(Discovery.protectedResourceMetadataUrls("https://mcp.example.com").map(String)).toEqual([
      "https://mcp.example.com/.well-known/oauth-protected-resource"
    ])
  })

  it("authorization-server metadata for an issuer with a path, in the spec's order", () => {
    expect(Discovery.authorizationServerMetadataUrls("https://auth.example.com/tenant1").map(String)).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration"
    ])
    expect(Discovery.authorizationServerMetadataUrls("https://auth.example.com/").map(String)).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration"
    ])
  })

  it("resource matching: same origin, the resource path a prefix of the server path", () => {
    expect(Discovery.resourceMatches("https://mcp.example.com/public/mcp", "https://mcp.example.com/public/mcp")).toBe(
      true
    )
    expect(Discovery.resourceMatches("https://mcp.example.com/public/mcp", "https://mcp.example.com")).toBe(true)
    expect(Discovery.resourceMatches("https://mcp.example.com/public/mcp", "https://mcp.example.com/public/")).toBe(
      true
    )
    expect(Discovery.resourceMatches("https://mcp.example.com/public/mcp", "https://mcp.example.com/pub")).toBe(false)
    expect(Discovery.resourceMatches("https://mcp.example.com/mcp", "https://evil.example.com/mcp")).toBe(false)
    expect(Discovery.resourceMatches("https://mcp.example.com/mcp", "http://mcp.example.com/mcp")).toBe(false)
    expect(Discovery.canonicalResource("https://MCP.example.com/")).toBe("https://mcp.example.com")
    expect(Discovery.canonicalResource("https://mcp.example.com/mcp#x")).toBe("https://mcp.example.com/mcp")
  })

  it("the resource named to an authorization server keeps the server URL's query and credentials to itself", () => {
    expect(Discovery.canonicalResource("https://mcp.example.com/mcp?api_key=sk-123&region=eu")).toBe(
      "https://mcp.example.com/mcp"
    )
    expect(Discovery.canonicalResource("https://user:pw@mcp.example.com/?key=sk-123")).toBe("https://mcp.example.com")
  })
})

describe("discover", () => {
  it.effect("falls back from the path-inserted PRM to the root, then tries the AS locations in order", () =>
    Effect.gen(function*() {
      const { result, urls } = yield* discover((r) => {
        if (r.url === "https://mcp.example.com/.well-known/oauth-protected-resource") {
          return {
            json: { resource: "https://mcp.example.com", authorization_servers: ["https://auth.example.com/tenant1"] }
          }
        }
        if (r.url === "https://auth.example.com/tenant1/.well-known/openid-configuration") {
          return { json: asMetadata("https://auth.example.com/tenant1") }
        }
      })
      expect(urls).toEqual([
        "GET https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
        "GET https://mcp.example.com/.well-known/oauth-protected-resource",
        "GET https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "GET https://auth.example.com/.well-known/openid-configuration/tenant1",
        "GET https://auth.example.com/tenant1/.well-known/openid-configuration"
      ])
      const found = result._tag === "Right" ? result.right : undefined
      expect(found?.resource).toBe("https://mcp.example.com") // verbatim from the metadata
      expect(found?.issuer).toBe("https://auth.example.com/tenant1")
      expect(found?.legacy).toBe(false)
    }))

  it.effect("uses the challenge's resource_metadata first and never guesses when it answers", () =>
    Effect.gen(function*() {
      const { result, urls } = yield* discover((r) => {
        if (r.url === "https://mcp.example.com/custom/prm.json") {
          return {
            json: {
              resource: "https://mcp.example.com/public/mcp",
              authorization_servers: ["https://auth.example.com"]
            }
          }
        }
        if (r.url === "https://auth.example.com/.well-known/oauth-authorization-server") {
          return { json: asMetadata("https://auth.example.com") }
        }
      }, { resourceMetadataUrl: "https://mcp.example.com/custom/prm.json" })
      expect(result._tag).toBe("Right")
      expect(urls).toEqual([
        "GET https://mcp.example.com/custom/prm.json",
        "GET https://auth.example.com/.well-known/oauth-authorization-server"
      ])
    }))

  it.effect("refuses metadata naming another resource", () =>
    Effect.gen(function*() {
      const { result, urls } = yield* discover((r) =>
        r.url.includes("oauth-protected-resource")
          ? { json: { resource: "https://evil.example.com/mcp", authorization_servers: ["https://auth.example.com"] } }
          : undefined
      )
      expect(result._tag === "Left" && result.left.reason).toBe("ResourceMismatch")
      expect(urls).toHaveLength(1)
    }))

  it.effect("refuses an issuer mismatch", () =>
    Effect.gen(function*() {
      const { result } = yield* discover((r) => {
        if (r.url.includes("oauth-protected-resource")) {
          return {
            json: {
              resource: "https://mcp.example.com/public/mcp",
              authorization_servers: ["https://auth.example.com"]
            }
          }
        }
        return { json: asMetadata("https://other.example.com") }
      })
      expect(result._tag === "Left" && result.left.reason).toBe("Discovery")
    }))

  it.effect("metadata listing an authorization server that is not a URL is a typed Discovery error", () =>
    Effect.gen(function*() {
      const { result, urls } = yield* discover((r) =>
        r.url.includes("oauth-protected-resource")
          ? { json: { resource: "https://mcp.example.com/public/mcp", authorization_servers: ["not a url\u202e"] } }
          : undefined
      )
      expect(result._tag === "Left" && result.left.reason).toBe("Discovery")
      expect(result._tag === "Left" && result.left.message).not.toContain("\u202e")
      expect(urls).toHaveLength(1)
    }))

  it.effect("a metadata redirect to an unparsable Location is a typed error, not a crash", () =>
    Effect.gen(function*() {
      const { result } = yield* discover((r) =>
        r.url.includes("oauth-protected-resource") ? { status: 302, headers: { location: "http://[::1" } } : undefined
      )
      expect(result._tag === "Left" && result.left.reason).toBe("Http")
      expect(result._tag === "Left" && result.left.message).toContain("unusable Location")
    }))

  it.effect("refuses server-supplied URLs the policy forbids, without fetching them", () =>
    Effect.gen(function*() {
      const { result, urls } = yield* discover((r) =>
        r.url.includes("oauth-protected-resource")
          ? {
            json: { resource: "https://mcp.example.com/public/mcp", authorization_servers: ["http://169.254.169.254"] }
          }
          : undefined
      )
      expect(result._tag === "Left" && result.left.reason).toBe("UnsafeUrl")
      expect(urls.some((u) => u.includes("169.254"))).toBe(false)
      const redirected = yield* discover((r) =>
        r.url.endsWith("/public/mcp") ? { status: 302, headers: { location: "http://10.0.0.5/prm" } } : undefined
      )
      expect(redirected.result._tag === "Left" && redirected.result.left.reason).toBe("UnsafeUrl")
      expect(redirected.urls.some((u) => u.includes("10.0.0.5"))).toBe(false)
    }))

  it.effect("no PRM: a 2025-03-26 server; its origin is the authorization server, default endpoints without metadata", () =>
    Effect.gen(function*() {
      const { result, urls } = yield* discover(() => undefined)
      expect(urls.slice(-2)).toEqual([
        "GET https://mcp.example.com/.well-known/oauth-authorization-server",
        "GET https://mcp.example.com/.well-known/openid-configuration"
      ])
      const found = result._tag === "Right" ? result.right : undefined
      expect(found?.legacy).toBe(true)
      expect(found?.authorizationServer.token_endpoint).toBe("https://mcp.example.com/token")
      expect(found?.resource).toBe("https://mcp.example.com/public/mcp")
      expect(Option.isNone(found!.resourceMetadata)).toBe(true)
    }))
})

describe("scope selection", () => {
  it("challenge scope first, then scopes_supported, else none", () => {
    expect(Scopes.select({ challenge: "files:read", scopesSupported: ["a", "b"] })).toEqual(["files:read"])
    expect(Scopes.select({ scopesSupported: ["a", "b"] })).toEqual(["a", "b"])
    expect(Scopes.select({})).toEqual([])
    expect(Scopes.format(Scopes.select({}))).toBeUndefined()
    expect(Scopes.select({ challenge: "a", configured: ["c"], scopesSupported: ["x"] })).toEqual(["a", "c"])
  })

  it("offline_access only when the authorization server lists it and something is requested", () => {
    expect(Scopes.withOfflineAccess(["mcp"], ["mcp", "offline_access"])).toEqual(["mcp", "offline_access"])
    expect(Scopes.withOfflineAccess(["mcp"], ["mcp"])).toEqual(["mcp"])
    expect(Scopes.withOfflineAccess(["mcp"], undefined)).toEqual(["mcp"])
    expect(Scopes.withOfflineAccess([], ["offline_access"])).toEqual([])
  })

  it("union and coverage for step-up", () => {
    expect(Scopes.union(["a", "b"], ["b", "c"])).toEqual(["a", "b", "c"])
    expect(Scopes.covers(Scopes.parse("a b c"), ["a", "c"])).toBe(true)
    expect(Scopes.covers(Scopes.parse("a"), ["a", "c"])).toBe(false)
  })
})
