// Issuer checks against oidc-provider (SEP-2468): the authorization-server metadata must name the issuer it was
// fetched for (RFC 8414 §3.3), and the authorization response's `iss` (RFC 9207) must be that issuer, compared
// as a plain string, before the code goes to any token endpoint. A tampered callback plays the mix-up attacker.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Authorizer, OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { startAuthServer } from "./fixtures/authServer.js"
import { connect, protectedServer, resource } from "./fixtures/harness.js"
import { startMcpFixture } from "./fixtures/mcpServer.js"

const redirectUri = "http://127.0.0.1:8976/callback"

/** A browser that completes the authorization, then lets `tamper` change the callback before the app sees it. */
const tamperingBrowser = (
  drive: (url: URL, redirectUri: string) => Promise<URL>,
  tamper: (callback: URLSearchParams) => void
) =>
  Authorizer.layer(
    redirectUri,
    (request) =>
      Effect.map(Effect.promise(() => drive(request.url, redirectUri)), (url) => {
        const callback = Authorizer.callbackParameters(url)
        tamper(callback)
        return callback
      })
  )

const authorizationCode = (browser: Layer.Layer<Authorizer.Authorizer>) =>
  OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
    Layer.provide(TokenStore.layerMemory),
    Layer.provide(browser)
  )

/** Runs the flow with a tampered callback; returns what the app saw and whether a code reached the token endpoint. */
const withCallback = (tamper: (callback: URLSearchParams, issuer: string) => void) =>
  Effect.gen(function*() {
    const { auth, mcp } = yield* protectedServer()
    const sent: Array<string | null> = []
    const browser = tamperingBrowser(auth.drive, (callback) => {
      sent.push(callback.get("iss"))
      tamper(callback, auth.issuer)
    })
    const client = yield* connect(mcp.url, authorizationCode(browser))
    const outcome = yield* Effect.either(client.mcp.callTool({ name: "read" }))
    return { auth, outcome, sent }
  })

const refusal = (outcome: { readonly _tag: "Left"; readonly left: unknown } | { readonly _tag: "Right" }) => {
  expect(outcome._tag).toBe("Left")
  const error = (outcome as { readonly left: unknown }).left
  expect(error).toBeInstanceOf(McpError.Unauthorized)
  return (error as McpError.Unauthorized).message
}

describe("issuer checks with oidc-provider", () => {
  it.scopedLive("oidc-provider advertises and sends iss; the matching value is accepted", () =>
    Effect.gen(function*() {
      const { auth, outcome, sent } = yield* withCallback(() => {})
      expect(sent).toEqual([auth.issuer])
      expect(outcome._tag).toBe("Right")
      expect(auth.grants).toEqual(["authorization_code"])
    }))

  it.scopedLive("iss with a trailing slash is another issuer: refused before the code is redeemed", () =>
    Effect.gen(function*() {
      const { auth, outcome } = yield* withCallback((callback, issuer) => callback.set("iss", `${issuer}/`))
      expect(refusal(outcome)).toBe(`OAuth Authorization: unexpected "iss" (issuer) response parameter value`)
      expect(auth.grants).toEqual([])
    }))

  it.scopedLive("iss of another authorization server (mix-up) is refused", () =>
    Effect.gen(function*() {
      const { auth, outcome } = yield* withCallback((callback) => callback.set("iss", "https://evil.example.com"))
      expect(refusal(outcome)).toBe(`OAuth Authorization: unexpected "iss" (issuer) response parameter value`)
      expect(auth.grants).toEqual([])
    }))

  it.scopedLive("iss missing although the server advertises it is refused", () =>
    Effect.gen(function*() {
      const { auth, outcome } = yield* withCallback((callback) => callback.delete("iss"))
      expect(refusal(outcome)).toBe(`OAuth Authorization: response parameter "iss" (issuer) missing`)
      expect(auth.grants).toEqual([])
    }))

  it.scopedLive("an error response with a foreign iss is refused as a mix-up, not reported as the error", () =>
    Effect.gen(function*() {
      const { outcome } = yield* withCallback((callback) => {
        callback.delete("code")
        callback.set("error", "access_denied")
        callback.set("iss", "https://evil.example.com")
      })
      expect(refusal(outcome)).toBe(`OAuth Authorization: unexpected "iss" (issuer) response parameter value`)
    }))

  it.scopedLive("metadata naming an issuer not identical to the one it was fetched for is not used", () =>
    Effect.gen(function*() {
      let mcpResource = ""
      const auth = yield* resource(() => startAuthServer({ resource: () => mcpResource }))
      // the resource lists the issuer with a trailing slash; oidc-provider's metadata names it without
      const listed = `${auth.issuer}/`
      const mcp = yield* resource(() => startMcpFixture({ issuer: () => listed, introspection: auth.introspection }))
      mcpResource = mcp.resource
      const browser = tamperingBrowser(auth.drive, () => {})
      const client = yield* connect(mcp.url, authorizationCode(browser))
      const error = yield* Effect.flip(client.mcp.callTool({ name: "read" }))
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error.message).toBe(
        `OAuth Discovery: ${auth.issuer}/.well-known/oauth-authorization-server names issuer ${auth.issuer}, expected ${listed}`
      )
      expect(auth.registrations()).toBe(0)
      expect(auth.authorizations).toHaveLength(0)
    }))
})
