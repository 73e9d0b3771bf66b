// DPoP details against an in-process fake authorization server (no sockets; TestClock): what a token-request
// proof holds, the one nonce retry at the token endpoint, the nonce round at the MCP server, and a server
// without a token endpoint.
import { describe, expect, it } from "@effect/vitest"
import { HttpAuth } from "@mcp-effect/transport-http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as jose from "jose"
import { Authorizer, OAuthClient, ServerAuth, TokenStore } from "../src/index.js"
import * as Dpop from "../src/internal/dpop.js"
import { type Answer, fakeHttp, type Seen } from "./fixtures/fakeHttp.js"

const server = "https://mcp.example.com/mcp"
const issuer = "https://as.example.com"

const setup = (options: {
  readonly metadata?: Record<string, unknown>
  readonly token?: (seen: Seen, n: number) => Answer
  /** Build the client from an `oauth2` server config instead. */
  readonly config?: unknown
}) =>
  Effect.gen(function*() {
    let n = 0
    const http = fakeHttp((r) => {
      if (r.url === "https://mcp.example.com/.well-known/oauth-protected-resource/mcp") {
        return { json: { resource: server, authorization_servers: [issuer] } }
      }
      if (r.url === `${issuer}/.well-known/oauth-authorization-server`) {
        return { json: { issuer, token_endpoint: `${issuer}/token?tenant=7`, ...options.metadata } }
      }
      if (r.url.startsWith(`${issuer}/token`)) {
        n++
        return options.token?.(r, n) ?? { json: { access_token: `at-${n}`, token_type: "DPoP", expires_in: 3600 } }
      }
    })
    const layer = options.config === undefined
      ? OAuthClient.layerClientCredentials({
        serverUrl: server,
        client: { clientId: "bot", clientSecret: Redacted.make("bot-secret") },
        dpop: true
      })
      : ServerAuth.layer(Schema.decodeUnknownSync(ServerAuth.ServerAuth)(options.config), { serverUrl: server })
    const context = yield* Layer.build(
      layer.pipe(
        Layer.provide(TokenStore.layerMemory),
        Layer.provide(http.layer),
        Layer.provide(Authorizer.layer("http://127.0.0.1:1/cb", () => Effect.never))
      )
    )
    return {
      hook: context.unsafeMap.get(HttpAuth.HttpAuth.key) as HttpAuth.Service,
      oauth: context.unsafeMap.get(OAuthClient.OAuthClient.key) as OAuthClient.Service,
      proofs: () => http.seen.filter((s) => s.url.startsWith(`${issuer}/token`)).map((s) => s.headers.dpop)
    }
  })

const decode = (proof: string | undefined) => ({
  header: jose.decodeProtectedHeader(proof!),
  claims: jose.decodeJwt(proof!)
})

describe("DPoP proofs (fake authorization server)", () => {
  it.scoped("a token-request proof: dpop+jwt, public jwk, POST, htu without query, iat from Clock, no ath", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_700_000_000_000)
      const { oauth, proofs } = yield* setup({})
      yield* oauth.authorize
      const { claims, header } = decode(proofs()[0])
      expect(header.typ).toBe("dpop+jwt")
      expect(header.alg).toBe("ES256")
      expect(header.jwk).toMatchObject({ kty: "EC", crv: "P-256" })
      expect(header.jwk).not.toHaveProperty("d")
      expect(claims).toMatchObject({ htm: "POST", htu: `${issuer}/token`, iat: 1_700_000_000 })
      expect(claims.ath).toBeUndefined()
      expect(claims.nonce).toBeUndefined()
      expect(typeof claims.jti).toBe("string")
    }))

  it.scoped("the resource request: DPoP scheme, its own proof with ath, htm and htu of the request", () =>
    Effect.gen(function*() {
      const { hook, oauth, proofs } = yield* setup({})
      yield* oauth.authorize
      const headers = yield* hook.headers({ url: `${server}?session=1`, method: "GET" })
      expect(headers.authorization).toBe("DPoP at-1")
      const { claims, header } = decode(headers.dpop)
      expect(header.jwk).toEqual(decode(proofs()[0]).header.jwk)
      expect(claims).toMatchObject({ htm: "GET", htu: server })
      const ath = jose.base64url.encode(
        new Uint8Array(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode("at-1"))))
      )
      expect(claims.ath).toBe(ath)
      const again = yield* hook.headers({ url: server, method: "POST" })
      expect(decode(again.dpop).claims.jti).not.toBe(claims.jti)
    }))

  it.scoped("use_dpop_nonce at the token endpoint: sent once more with the nonce, then a typed refusal", () =>
    Effect.gen(function*() {
      const { oauth, proofs } = yield* setup({
        token: (_r, n) => ({
          status: 400,
          json: { error: "use_dpop_nonce", error_description: "nonce required" },
          headers: { "dpop-nonce": `as-nonce-${n}` }
        })
      })
      const error = yield* Effect.flip(oauth.authorize)
      expect(error).toMatchObject({ _tag: "OAuthError", reason: "Token", error: "use_dpop_nonce" })
      expect(proofs()).toHaveLength(2)
      expect(decode(proofs()[0]).claims.nonce).toBeUndefined()
      expect(decode(proofs()[1]).claims.nonce).toBe("as-nonce-1")
    }))

  it.scoped("use_dpop_nonce at the MCP server: retry with the nonce (each time: the transport bounds it), fail without", () =>
    Effect.gen(function*() {
      const { hook, oauth } = yield* setup({})
      yield* oauth.authorize
      const nonceChallenge = (nonce: string | undefined): HttpAuth.ChallengeInfo => {
        const challenge = { scheme: "DPoP", params: { error: "use_dpop_nonce" } }
        return { status: 401, url: server, wwwAuthenticate: challenge, challenges: [challenge], nonce }
      }
      expect(yield* hook.onChallenge(nonceChallenge(undefined))).toBe("fail")
      expect(yield* hook.onChallenge(nonceChallenge("rs-1"))).toBe("retry")
      expect(decode((yield* hook.headers({ url: server, method: "POST" })).dpop).claims.nonce).toBe("rs-1")
      // a parallel request challenged with the same nonce retries too
      expect(yield* hook.onChallenge(nonceChallenge("rs-1"))).toBe("retry")
    }))

  it.scoped("an oauth2 server config with dpop: true gets DPoP-bound tokens", () =>
    Effect.gen(function*() {
      const config = { type: "oauth2", clientId: "bot", clientSecret: "bot-secret", dpop: true }
      const { hook, oauth, proofs } = yield* setup({ config })
      yield* oauth.authorize
      expect(decode(proofs()[0]).header.typ).toBe("dpop+jwt")
      expect((yield* hook.headers({ url: server, method: "POST" })).authorization).toBe("DPoP at-1")
    }))

  it.effect("nonces of 32 origins are kept; the least recently told is forgotten first", () =>
    Effect.gen(function*() {
      const session = (yield* Dpop.make(true))!
      for (let i = 0; i < 32; i++) yield* Dpop.rememberNonce(session, `https://s${i}.example.com/mcp`, `n${i}`)
      yield* Dpop.rememberNonce(session, "https://s0.example.com/token", "n0-again") // s0 is now the newest
      yield* Dpop.rememberNonce(session, "https://s32.example.com/mcp", "n32")
      const nonces = yield* Ref.get(session.nonces)
      expect(nonces.size).toBe(32)
      expect(nonces.has("https://s1.example.com")).toBe(false)
      expect(nonces.get("https://s0.example.com")).toBe("n0-again")
      expect(nonces.get("https://s32.example.com")).toBe("n32")
    }))

  it.scoped("an authorization server without a token endpoint: an OAuthError, not a defect", () =>
    Effect.gen(function*() {
      const { oauth } = yield* setup({ metadata: { token_endpoint: undefined } })
      const error = yield* Effect.flip(oauth.authorize)
      expect(error).toMatchObject({ _tag: "OAuthError", reason: "Discovery" })
    }))
})
