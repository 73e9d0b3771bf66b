// The authorization-code flow end to end: oidc-provider guarding an SDK MCP server, reached by
// McpClient over HttpTransport with the OAuth Layer.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { browserFor, connect, protectedServer, text } from "./fixtures/harness.js"

const withStore = Effect.gen(function*() {
  const store = yield* TokenStore.makeMemory()
  return { store, layer: Layer.succeed(TokenStore.TokenStore, store) }
})

const setup = (options: Parameters<typeof protectedServer>[0] = {}) =>
  Effect.gen(function*() {
    const { auth, mcp } = yield* protectedServer(options)
    const { layer, store } = yield* withStore
    const oauth = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
      Layer.provide(layer),
      Layer.provide(browserFor(auth))
    )
    const client = yield* connect(mcp.url, oauth)
    const key = { resource: mcp.resource, issuer: auth.issuer }
    const tokens = Effect.map(store.getTokens(key), Option.getOrThrow)
    return { auth, mcp, store, client, key, tokens }
  })

describe("authorization code with oidc-provider", () => {
  it.scopedLive("dynamic registration, PKCE S256, resource and state; the tool call goes through", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer()
      const { layer, store } = yield* withStore
      const oauth = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
        Layer.provide(layer),
        Layer.provide(browserFor(auth))
      )
      const client = yield* connect(mcp.url, oauth)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")

      expect(auth.registrations()).toBe(1)
      expect(auth.authorizations).toHaveLength(1)
      const request = auth.authorizations[0]!
      expect(request.get("code_challenge_method")).toBe("S256")
      expect(request.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(request.get("resource")).toBe(mcp.resource)
      expect(request.get("scope")).toBe("mcp:read offline_access")
      expect(request.get("state")).not.toBeNull()
      expect(auth.grants).toEqual(["authorization_code"])
      const tokens = yield* store.getTokens({ resource: mcp.resource, issuer: auth.issuer })
      expect(Option.isSome(tokens)).toBe(true)
      expect(Option.getOrThrow(tokens).refreshToken).toBeDefined()
      expect(mcp.tokens[0]).toBeUndefined()
      expect(mcp.tokens.at(-1)).toBe(`Bearer ${Redacted.value(Option.getOrThrow(tokens).accessToken)}`)
    }))

  it.scopedLive("the first request of a new process carries the stored token: the server sees no 401", () =>
    Effect.gen(function*() {
      const { auth, client, mcp, store } = yield* setup()
      yield* client.mcp.callTool({ name: "read" }) // the first process authorizes
      expect(mcp.statuses.filter((s) => s === 401)).toHaveLength(1)
      const seen = mcp.statuses.length
      // a second process: a new OAuth layer and transport over the same store
      const oauth = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
        Layer.provide(Layer.succeed(TokenStore.TokenStore, store)),
        Layer.provide(browserFor(auth))
      )
      const again = yield* connect(mcp.url, oauth)
      expect(text(yield* again.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(mcp.statuses.slice(seen)).not.toContain(401)
      expect(mcp.tokens.slice(seen).every((t) => t?.startsWith("Bearer ") === true)).toBe(true)
      expect(auth.authorizations).toHaveLength(1)
    }))

  it.scopedLive("an access token due for expiry is refreshed before the request", () =>
    Effect.gen(function*() {
      const { auth, client, key, mcp, store, tokens } = yield* setup()
      yield* client.mcp.callTool({ name: "read" })
      const before = yield* tokens
      yield* store.setTokens(key, { ...before, expiresAt: Date.now() + 1000 }) // inside the 60 s skew
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      const after = yield* tokens
      expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
      expect(Redacted.value(after.accessToken)).not.toBe(Redacted.value(before.accessToken))
      expect(Redacted.value(after.refreshToken!)).not.toBe(Redacted.value(before.refreshToken!)) // rotated
      expect(mcp.statuses.filter((s) => s === 401)).toHaveLength(1) // only the very first request
    }))

  it.scopedLive("a revoked access token is refreshed silently after the 401", () =>
    Effect.gen(function*() {
      const { auth, client, tokens } = yield* setup()
      yield* client.mcp.callTool({ name: "read" })
      yield* Effect.promise(() => auth.revokeAccessToken(Redacted.value(Effect.runSync(tokens).accessToken)))
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
      expect(auth.authorizations).toHaveLength(1)
    }))

  it.scopedLive("a revoked grant ends in Unauthorized with reauthorize, then a new authorization works", () =>
    Effect.gen(function*() {
      const { auth, client, key, store, tokens } = yield* setup()
      yield* client.mcp.callTool({ name: "read" })
      yield* Effect.promise(() => auth.revokeGrantOf(Redacted.value(Effect.runSync(tokens).refreshToken!)))
      const error = yield* Effect.flip(client.mcp.callTool({ name: "read" }))
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect((error as McpError.Unauthorized).reauthorize).toBe(true)
      expect(Option.isNone(yield* store.getTokens(key))).toBe(true)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.authorizations).toHaveLength(2)
    }))

  it.scopedLive("parallel requests with an expiring token spend the rotating refresh token once", () =>
    Effect.gen(function*() {
      const { auth, client, key, mcp, store, tokens } = yield* setup()
      yield* client.mcp.callTool({ name: "read" })
      yield* store.setTokens(key, { ...(yield* tokens), expiresAt: Date.now() - 1 })
      const results = yield* Effect.all(
        Array.from({ length: 8 }, () => client.mcp.callTool({ name: "read" })),
        { concurrency: "unbounded" }
      )
      expect(results.map(text)).toEqual(Array(8).fill("read ok"))
      expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
      const fresh = `Bearer ${Redacted.value((yield* tokens).accessToken)}`
      expect(mcp.tokens.slice(-8)).toEqual(Array(8).fill(fresh))
    }))

  it.scopedLive("403 insufficient_scope: step-up with the union of the scopes", () =>
    Effect.gen(function*() {
      const { auth, client, tokens } = yield* setup()
      yield* client.mcp.callTool({ name: "read" })
      expect(text(yield* client.mcp.callTool({ name: "write" }))).toBe("write ok")
      expect(auth.authorizations).toHaveLength(2)
      expect(auth.authorizations[1]!.get("scope")).toBe("mcp:read mcp:write offline_access")
      expect((yield* tokens).scope?.split(" ").sort()).toEqual(["mcp:read", "mcp:write"])
    }))

  it.scopedLive("step-up stops after 3 authorizations when the user keeps declining", () =>
    Effect.gen(function*() {
      const { auth, client } = yield* setup({ grantScopes: (requested) => requested.filter((s) => s !== "mcp:write") })
      yield* client.mcp.callTool({ name: "read" })
      for (let i = 0; i < 4; i++) {
        const error = yield* Effect.flip(client.mcp.callTool({ name: "write" }))
        expect(error).toBeInstanceOf(McpError.InsufficientScope)
      }
      expect(auth.authorizations.map((a) => a.get("scope"))).toEqual([
        "mcp:read offline_access",
        "mcp:read mcp:write offline_access",
        "mcp:read mcp:write offline_access",
        "mcp:read mcp:write offline_access"
      ])
    }))
})
