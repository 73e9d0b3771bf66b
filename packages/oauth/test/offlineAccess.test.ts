// SEP-2207 against oidc-provider: `offline_access` is asked for only when the authorization server lists it in
// `scopes_supported`, and a refresh token is used when one comes, never assumed.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { browserFor, connect, protectedServer, text } from "./fixtures/harness.js"

const run = (offlineAccess: boolean) =>
  Effect.gen(function*() {
    const { auth, mcp } = yield* protectedServer({ offlineAccess })
    const store = yield* TokenStore.makeMemory()
    const client = yield* connect(
      mcp.url,
      OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
        Layer.provide(Layer.succeed(TokenStore.TokenStore, store)),
        Layer.provide(browserFor(auth))
      )
    )
    expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
    const tokens = Option.getOrThrow(yield* store.getTokens({ resource: mcp.resource, issuer: auth.issuer }))
    return { request: auth.authorizations[0]!, tokens }
  })

describe("offline_access with oidc-provider", () => {
  it.scopedLive("offered: asked for with consent, and the refresh token is kept", () =>
    Effect.gen(function*() {
      const { request, tokens } = yield* run(true)
      expect(request.get("scope")).toBe("mcp:read offline_access")
      expect(request.get("prompt")).toBe("consent")
      expect(tokens.refreshToken).toBeDefined()
    }))

  it.scopedLive("not offered: never asked for; the flow works without a refresh token", () =>
    Effect.gen(function*() {
      const { request, tokens } = yield* run(false)
      expect(request.get("scope")).toBe("mcp:read")
      expect(request.get("prompt")).toBeNull()
      expect(tokens.refreshToken).toBeUndefined()
    }))
})
