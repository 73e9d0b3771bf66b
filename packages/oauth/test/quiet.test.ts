// A green run prints nothing from the test authorization server: each default oidc-provider would announce
// (in-memory adapter, token lifetimes, introspection and revocation policies) is set by the fixture. Runs the
// flows that reach those defaults (authorization code, refresh, client credentials, introspection, revocation)
// in a file of its own, so the provider's once-per-process notices cannot have been spent elsewhere.
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { browserFor, connect, protectedServer, text } from "./fixtures/harness.js"

const printed: Array<string> = []
const methods = ["log", "info", "warn", "error", "debug"] as const

describe("the test authorization server is quiet", () => {
  beforeEach(() => {
    printed.length = 0
    for (const method of methods) {
      vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) =>
        void printed.push(args.map(String).join(" "))
      )
    }
  })
  afterEach(() => void vi.restoreAllMocks())

  it.scopedLive("no oidc-provider notice or warning during the flows", () =>
    Effect.gen(function*() {
      const secret = "machine-secret-never-shown-0123456789"
      const { auth, mcp } = yield* protectedServer({
        machines: [{ client_id: "machine", client_secret: secret, token_endpoint_auth_method: "client_secret_basic" }]
      })
      const store = yield* TokenStore.makeMemory()
      const person = yield* connect(
        mcp.url,
        OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
          Layer.provide(Layer.succeed(TokenStore.TokenStore, store)),
          Layer.provide(browserFor(auth))
        )
      )
      expect(text(yield* person.mcp.callTool({ name: "read" }))).toBe("read ok")
      const key = { resource: mcp.resource, issuer: auth.issuer }
      const tokens = Option.getOrThrow(yield* store.getTokens(key))
      yield* store.setTokens(key, { ...tokens, expiresAt: Date.now() }) // refreshed before the next call
      expect(text(yield* person.mcp.callTool({ name: "read" }))).toBe("read ok")
      const refreshed = Option.getOrThrow(yield* store.getTokens(key))
      yield* Effect.promise(() => auth.revokeAccessToken(Redacted.value(refreshed.accessToken))) // refreshed after the 401
      expect(text(yield* person.mcp.callTool({ name: "read" }))).toBe("read ok")

      const machine = yield* connect(
        mcp.url,
        OAuthClient.layerClientCredentials({
          client: { clientId: "machine", clientSecret: Redacted.make(secret) },
          urlPolicy: UrlPolicy.loopbackDevelopment
        }).pipe(Layer.provide(TokenStore.layerMemory))
      )
      expect(text(yield* machine.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants).toEqual(["authorization_code", "refresh_token", "refresh_token", "client_credentials"])
      expect(printed.filter((line) => line.includes("oidc-provider"))).toEqual([])
    }))
})
