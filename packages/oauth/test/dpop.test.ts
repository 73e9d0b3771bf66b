// DPoP (RFC 9449) end to end: oidc-provider issues DPoP-bound tokens (its DPoP feature, nonces on demand) and
// the MCP fixture accepts a token only as `Authorization: DPoP` with a proof it checks with jose (signature,
// htm/htu, iat, unseen jti, ath) whose key is the token's cnf.jkt.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import { Authorizer, OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { browserFor, connect, protectedServer, text } from "./fixtures/harness.js"

const secret = "machine-secret-never-shown-0123456789"
const machine = {
  client_id: "machine",
  client_secret: secret,
  token_endpoint_auth_method: "client_secret_basic" as const
}

const machineClient = (store: TokenStore.Service, dpop: OAuthClient.Options["dpop"] = true) =>
  OAuthClient.layerClientCredentials({
    client: { clientId: "machine", clientSecret: Redacted.make(secret) },
    urlPolicy: UrlPolicy.loopbackDevelopment,
    dpop
  }).pipe(Layer.provide(Layer.succeed(TokenStore.TokenStore, store)))

/** Every proof the MCP server saw passed its checks, and came from one key. */
const allProofsValid = (proofs: ReadonlyArray<{ readonly ok: boolean }>) => {
  expect(proofs.length).toBeGreaterThan(0)
  expect(proofs.filter((p) => !p.ok)).toEqual([])
  expect(new Set(proofs.map((p) => (p as { jkt?: string }).jkt)).size).toBe(1)
}

describe("DPoP with oidc-provider", () => {
  it.scopedLive("client credentials: a DPoP-bound token, a fresh proof on every MCP request", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ machines: [machine], resourceDpop: {} })
      const store = yield* TokenStore.makeMemory()
      const client = yield* connect(mcp.url, machineClient(store))
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants).toEqual(["client_credentials"])
      allProofsValid(mcp.proofs)
      expect(mcp.tokens.filter((t) => t !== undefined).every((t) => t!.startsWith("DPoP "))).toBe(true)
      const stored = Option.getOrThrow(
        yield* store.getTokens({ resource: mcp.resource, issuer: auth.issuer, clientId: "machine" })
      )
      expect(stored.tokenType.toLowerCase()).toBe("dpop")
      expect(stored.dpopKey?.thumbprint).toBe((mcp.proofs[0] as { jkt: string }).jkt)
    }))

  it.scopedLive("an Ed25519 key when asked for", () =>
    Effect.gen(function*() {
      const { mcp } = yield* protectedServer({ machines: [machine], resourceDpop: {} })
      const client = yield* connect(mcp.url, machineClient(yield* TokenStore.makeMemory(), { algorithm: "Ed25519" }))
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      allProofsValid(mcp.proofs)
      expect(mcp.proofs.map((p) => p.ok && p.alg)).toContain("Ed25519")
    }))

  it.scopedLive("nonces: one retry at the token endpoint and one at the MCP server", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({
        machines: [machine],
        dpopNonce: true,
        resourceDpop: { requireNonce: true }
      })
      const client = yield* connect(mcp.url, machineClient(yield* TokenStore.makeMemory()))
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grantErrors).toEqual(["use_dpop_nonce"])
      expect(auth.grants).toEqual(["client_credentials"])
      // the first token-bearing request is asked for a nonce; every later one carries it
      expect(mcp.nonceChallenges()).toBe(1)
      allProofsValid(mcp.proofs)
      expect(mcp.proofs.slice(1).every((p) => p.ok && p.nonce === "rs-nonce-1")).toBe(true)
    }))

  it.scopedLive("authorization code and refresh: every token request carries a proof of the same key", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ accessTokenTtl: 30, resourceDpop: {} })
      const layer = OAuthClient.layerAuthorizationCode({
        urlPolicy: UrlPolicy.loopbackDevelopment,
        // inside the skew from the start: each request refreshes first
        refreshSkew: "10 minutes",
        dpop: true
      }).pipe(Layer.provide(browserFor(auth)), Layer.provide(TokenStore.layerMemory))
      const client = yield* connect(mcp.url, layer)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants[0]).toBe("authorization_code")
      // oidc-provider binds a public client's refresh token to the DPoP key: a refresh without its proof fails
      expect(auth.grants.slice(1)).toContain("refresh_token")
      allProofsValid(mcp.proofs)
    }))

  it.scopedLive("authorization code: the registration asks for DPoP-bound tokens, the code is bound to the key", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ resourceDpop: {} })
      const store = yield* TokenStore.makeMemory()
      const layer = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment, dpop: true }).pipe(
        Layer.provide(browserFor(auth)),
        Layer.provide(Layer.succeed(TokenStore.TokenStore, store))
      )
      const client = yield* connect(mcp.url, layer)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      // RFC 9449 §5.2: a client that always uses DPoP says so when it registers
      expect(auth.registered).toHaveLength(1)
      expect(auth.registered[0]).toMatchObject({ dpop_bound_access_tokens: true })
      // §10: the authorization request names the key, and the code exchange and every request prove it
      const jkt = auth.authorizations[0]!.get("dpop_jkt")
      expect(jkt).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const stored = Option.getOrThrow(yield* store.getTokens({ resource: mcp.resource, issuer: auth.issuer }))
      expect(stored.dpopKey?.thumbprint).toBe(jkt)
      allProofsValid(mcp.proofs)
      expect((mcp.proofs[0] as { jkt: string }).jkt).toBe(jkt)
    }))

  const redirectUri = "http://127.0.0.1:8976/callback"

  /** A page's OAuth Layer over `store` (the pages of one browser share it). */
  const page = (
    mcp: { readonly url: string },
    store: TokenStore.Service,
    authorizer: Layer.Layer<Authorizer.Authorizer>,
    dpop = true
  ) =>
    OAuthClient.layerAuthorizationCode({ serverUrl: mcp.url, urlPolicy: UrlPolicy.loopbackDevelopment, dpop }).pipe(
      Layer.provide(authorizer),
      Layer.provide(Layer.succeed(TokenStore.TokenStore, store))
    )

  /** The first page sends the browser to the authorization server and is gone; yields the callback that lands. */
  const leaveForAuthorization = (
    auth: { readonly drive: (url: URL, redirectUri: string) => Promise<URL> },
    mcp: { readonly url: string },
    store: TokenStore.Service
  ) =>
    Effect.gen(function*() {
      const landed = yield* Deferred.make<URL>()
      const leaves = Authorizer.layer(redirectUri, (request) =>
        Effect.promise(() =>
          auth.drive(request.url, redirectUri)
        ).pipe(
          Effect.flatMap((callback) => Deferred.succeed(landed, callback)),
          Effect.zipRight(Effect.never)
        ))
      yield* Effect.forkScoped(
        Effect.flatMap(connect(mcp.url, page(mcp, store, leaves)), (first) => first.mcp.listTools)
      )
      return yield* Deferred.await(landed)
    })

  /** The next page load: a new OAuth Layer (no key in memory) over the same store. */
  const nextPage = (mcp: { readonly url: string }, store: TokenStore.Service, dpop = true) =>
    Layer.build(
      page(mcp, store, Authorizer.layer(redirectUri, () => Effect.die("the next page never authorizes again")), dpop)
        .pipe(
          Layer.provide(FetchHttpClient.layer)
        )
    )

  const completeOn = (context: Context.Context<OAuthClient.OAuthClient>, callback: URL) =>
    Effect.flatMap(OAuthClient.OAuthClient, (oauth) => oauth.completeAuthorization(callback)).pipe(
      Effect.provide(context)
    )

  it.scopedLive("a full-page redirect: the next page load exchanges the code with the key the request named", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ resourceDpop: {} })
      const store = yield* TokenStore.makeMemory()
      const callback = yield* leaveForAuthorization(auth, mcp, store)
      const second = yield* nextPage(mcp, store)
      yield* completeOn(second, callback)
      const client = yield* connect(mcp.url, Layer.succeedContext(second))
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")

      expect(auth.authorizations).toHaveLength(1)
      expect(auth.grants).toEqual(["authorization_code"])
      const jkt = auth.authorizations[0]!.get("dpop_jkt")
      const stored = Option.getOrThrow(yield* store.getTokens({ resource: mcp.resource, issuer: auth.issuer }))
      expect(stored.dpopKey?.thumbprint).toBe(jkt)
      allProofsValid(mcp.proofs)
      expect((mcp.proofs[0] as { jkt: string }).jkt).toBe(jkt)
    }))

  it.scopedLive("a code bound to a DPoP key, completed by a page without the dpop option: Configuration, no exchange", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ resourceDpop: {} })
      const store = yield* TokenStore.makeMemory()
      const callback = yield* leaveForAuthorization(auth, mcp, store)
      const error = yield* Effect.flip(completeOn(yield* nextPage(mcp, store, false), callback))
      expect(error.reason).toBe("Configuration")
      expect(error.message).toContain("bound to a DPoP key")
      expect(auth.grants).toEqual([])
    }))

  it.scopedLive("a DPoP-Nonce on a successful answer is used on the next request, with no 401 first", () =>
    Effect.gen(function*() {
      const { mcp } = yield* protectedServer({
        machines: [machine],
        resourceDpop: { requireNonce: true, rotateNonce: true }
      })
      const client = yield* connect(mcp.url, machineClient(yield* TokenStore.makeMemory()))
      for (let i = 0; i < 3; i++) expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      // rs-nonce-1 from the one use_dpop_nonce refusal; each tool call's answer brought the next one
      expect(mcp.toolCallNonces).toEqual(["rs-nonce-1", "rs-nonce-2", "rs-nonce-3"])
      expect(mcp.nonceChallenges()).toBe(1)
      allProofsValid(mcp.proofs)
    }))

  it.scopedLive("a restarted client signs with the stored key: no new grant", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ machines: [machine], resourceDpop: {} })
      const store = yield* TokenStore.makeMemory()
      const first = yield* connect(mcp.url, machineClient(store))
      yield* first.mcp.listTools
      const second = yield* connect(mcp.url, machineClient(store))
      expect(text(yield* second.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants).toEqual(["client_credentials"])
      allProofsValid(mcp.proofs)
    }))

  const tamperings: ReadonlyArray<[string, (tokens: TokenStore.Tokens) => Effect.Effect<TokenStore.Tokens>]> = [
    ["missing", (tokens) => Effect.succeed({ ...tokens, dpopKey: undefined })],
    [
      "replaced by another key",
      (tokens) =>
        Effect.promise(async () => {
          const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true })
          const jwk = { ...(await jose.exportJWK(privateKey)), alg: "ES256" }
          return { ...tokens, dpopKey: { ...tokens.dpopKey!, privateJwk: Redacted.make(JSON.stringify(jwk)) } }
        })
    ],
    [
      "with another private scalar",
      (tokens) =>
        Effect.promise(async () => {
          const other = await jose.exportJWK((await jose.generateKeyPair("ES256", { extractable: true })).privateKey)
          const jwk = { ...JSON.parse(Redacted.value(tokens.dpopKey!.privateJwk)), d: other.d }
          return { ...tokens, dpopKey: { ...tokens.dpopKey!, privateJwk: Redacted.make(JSON.stringify(jwk)) } }
        })
    ]
  ]
  for (const [name, tamper] of tamperings) {
    it.scopedLive(`a stored key ${name}: the token is not used, a new grant replaces it`, () =>
      Effect.gen(function*() {
        const { auth, mcp } = yield* protectedServer({ machines: [machine], resourceDpop: {} })
        const store = yield* TokenStore.makeMemory()
        const key = { resource: mcp.resource, issuer: auth.issuer, clientId: "machine" }
        yield* (yield* connect(mcp.url, machineClient(store))).mcp.listTools
        const before = Option.getOrThrow(yield* store.getTokens(key))
        yield* store.setTokens(key, yield* tamper(before))
        const restarted = yield* connect(mcp.url, machineClient(store))
        expect(text(yield* restarted.mcp.callTool({ name: "read" }))).toBe("read ok")
        expect(auth.grants).toEqual(["client_credentials", "client_credentials"])
        // the old token never went out with a proof of the wrong key
        expect(mcp.proofs.filter((p) => !p.ok)).toEqual([])
        const after = Option.getOrThrow(yield* store.getTokens(key))
        expect(Redacted.value(after.accessToken)).not.toBe(Redacted.value(before.accessToken))
        expect(after.dpopKey).toBeDefined()
      }))
  }

  it.scopedLive("an algorithm the authorization server does not accept: Unauthorized, no token request", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer({ machines: [machine], resourceDpop: {} })
      const client = yield* connect(mcp.url, machineClient(yield* TokenStore.makeMemory(), { algorithm: "ES384" }))
      const error = yield* Effect.flip(client.mcp.listTools)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error.message).toContain("OAuth Configuration")
      expect(error.message).toContain("ES384")
      expect(auth.grants).toEqual([])
    }))

  it.scopedLive("without the dpop option the token stays a bearer token (the DPoP server refuses it)", () =>
    Effect.gen(function*() {
      const { mcp } = yield* protectedServer({ machines: [machine], resourceDpop: {} })
      const client = yield* connect(mcp.url, machineClient(yield* TokenStore.makeMemory(), false))
      expect(yield* Effect.flip(client.mcp.listTools)).toBeInstanceOf(McpError.Unauthorized)
      expect(mcp.proofs).toEqual([])
    }))
})
