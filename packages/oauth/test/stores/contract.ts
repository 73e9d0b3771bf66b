import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as TokenStore from "../../src/TokenStore.js"

/** Builds a fresh, empty store for one test. */
export type MakeLayer = (options?: TokenStore.StoreOptions) => Layer.Layer<TokenStore.TokenStore, unknown>

export const key: TokenStore.TokenKey = { resource: "https://mcp.example.com/mcp", issuer: "https://auth.example.com" }

export const tokens: TokenStore.Tokens = {
  accessToken: Redacted.make("access-token-3f9a1c"),
  tokenType: "Bearer",
  refreshToken: Redacted.make("refresh-token-77be02"),
  expiresAt: 1_700_000_360_000,
  scope: "mcp:read mcp:write",
  // the key DPoP-bound tokens are bound to is a secret of the same record
  dpopKey: {
    privateJwk: Redacted.make(
      JSON.stringify({ kty: "EC", crv: "P-256", x: "x-5e1f", y: "y-0a7c", d: "dpop-private-d-9c41" })
    ),
    thumbprint: "jkt-2b8e"
  }
}

export const client: TokenStore.ClientRegistration = {
  clientId: "client-1",
  clientSecret: Redacted.make("client-secret-a81d4e"),
  clientSecretExpiresAt: 1_800_000_000_000,
  registrationAccessToken: Redacted.make("registration-token-5c02f7"),
  registrationClientUri: "https://auth.example.com/register/client-1",
  source: "dynamic",
  redirectUris: ["http://127.0.0.1:33418/callback", "http://[::1]:33418/callback"],
  tokenEndpointAuthMethod: "client_secret_basic"
}

export const pending = (createdAt: number, state = "state-0d9e"): TokenStore.PendingAuthorization => ({
  state,
  codeVerifier: Redacted.make("code-verifier-e4b6c8d0a2f1e3b5c7d9f0a1b2c3d4e5f6a7b8c9d0e"),
  redirectUri: "http://127.0.0.1:33418/callback",
  key,
  clientId: "client-1",
  scope: "mcp:read",
  createdAt,
  // the key a DPoP-bound code is bound to (dpop_jkt), a secret of the same record
  dpopKey: {
    privateJwk: Redacted.make(
      JSON.stringify({ kty: "EC", crv: "P-256", x: "x-31d0", y: "y-c7e2", d: "dpop-pending-d-61a7" })
    ),
    thumbprint: "jkt-8f03"
  }
})

/** Every secret of the fixtures above, to look for in stored bytes. */
export const secrets = [
  "access-token-3f9a1c",
  "refresh-token-77be02",
  "client-secret-a81d4e",
  "registration-token-5c02f7",
  "code-verifier-e4b6c8d0a2f1e3b5c7d9f0a1b2c3d4e5f6a7b8c9d0e",
  "dpop-private-d-9c41",
  "dpop-pending-d-61a7"
]

const secret = (value: Redacted.Redacted<string> | undefined) => {
  if (value === undefined) return undefined
  expect(Redacted.isRedacted(value)).toBe(true)
  return Redacted.value(value)
}

/** Redacted values compare by identity; compare what they hold instead. */
export const exposeTokens = (t: TokenStore.Tokens) => ({
  ...t,
  accessToken: secret(t.accessToken),
  refreshToken: secret(t.refreshToken),
  dpopKey: t.dpopKey === undefined ? undefined : { ...t.dpopKey, privateJwk: secret(t.dpopKey.privateJwk) }
})

export const exposeClient = (c: TokenStore.ClientRegistration) => ({
  ...c,
  clientSecret: secret(c.clientSecret),
  registrationAccessToken: secret(c.registrationAccessToken)
})

export const exposePending = (p: TokenStore.PendingAuthorization) => ({
  ...p,
  codeVerifier: secret(p.codeVerifier),
  dpopKey: p.dpopKey === undefined ? undefined : { ...p.dpopKey, privateJwk: secret(p.dpopKey.privateJwk) }
})

const someValue = <A>(option: Option.Option<A>): A => {
  expect(Option.isSome(option)).toBe(true)
  return Option.getOrThrow(option)
}

/**
 * The behaviour every `TokenStore` Layer must have. `makeLayer` is called once
 * per test and must give an empty store.
 */
export const contractSuite = (name: string, makeLayer: MakeLayer) =>
  describe(`TokenStore contract: ${name}`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, TokenStore.TokenStore>, options?: TokenStore.StoreOptions) =>
      Effect.provide(effect, makeLayer(options))

    it.effect("reads nothing from an empty store", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        expect(Option.isNone(yield* store.getTokens(key))).toBe(true)
        expect(Option.isNone(yield* store.getClient(key.issuer))).toBe(true)
        expect(Option.isNone(yield* store.getPending("state-0d9e"))).toBe(true)
      })))

    it.effect("round-trips tokens exactly, secrets still Redacted", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        yield* store.setTokens(key, tokens)
        const read = someValue(yield* store.getTokens(key))
        expect(exposeTokens(read)).toEqual(exposeTokens(tokens))
        expect(String(read.accessToken)).not.toContain("access-token")
      })))

    it.effect("round-trips tokens with only the required fields", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        const minimal: TokenStore.Tokens = { accessToken: Redacted.make("a"), tokenType: "DPoP" }
        yield* store.setTokens(key, minimal)
        const read = someValue(yield* store.getTokens(key))
        expect(exposeTokens(read)).toEqual({ accessToken: "a", tokenType: "DPoP" })
        expect(read.refreshToken).toBeUndefined()
      })))

    it.effect("overwrites tokens on set", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        yield* store.setTokens(key, tokens)
        yield* store.setTokens(key, { ...tokens, accessToken: Redacted.make("rotated"), refreshToken: undefined })
        const read = someValue(yield* store.getTokens(key))
        expect(secret(read.accessToken)).toBe("rotated")
        expect(read.refreshToken).toBeUndefined()
      })))

    it.effect("keys tokens by resource and issuer together", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        const otherIssuer = { ...key, issuer: "https://other-issuer.example.com" }
        const otherResource = { ...key, resource: "https://mcp.example.com/other" }
        yield* store.setTokens(key, tokens)
        expect(Option.isNone(yield* store.getTokens(otherIssuer))).toBe(true)
        expect(Option.isNone(yield* store.getTokens(otherResource))).toBe(true)
        yield* store.setTokens(otherIssuer, { ...tokens, accessToken: Redacted.make("from-other-issuer") })
        yield* store.deleteTokens(key)
        expect(Option.isNone(yield* store.getTokens(key))).toBe(true)
        expect(secret(someValue(yield* store.getTokens(otherIssuer)).accessToken)).toBe("from-other-issuer")
      })))

    it.effect("keeps ids with any characters apart", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        const awkward: ReadonlyArray<TokenStore.TokenKey> = [
          { resource: "https://mcp.example.com/a b?x=1&y=/../../etc/passwd#f", issuer: "https://auth.example.com" },
          { resource: "https://mcp.example.com/a b?x=1&y=/../../etc/passwd#f", issuer: "https://auth.example.com/" },
          { resource: "..", issuer: "/" },
          { resource: "https://ü.example/ресурс", issuer: "CON" },
          // A naive "resource|issuer" join would confuse these two.
          { resource: "a", issuer: "b\",\"c" },
          { resource: "a\",\"b", issuer: "c" }
        ]
        yield* Effect.forEach(awkward, (k, i) => store.setTokens(k, { ...tokens, accessToken: Redacted.make(`t${i}`) }))
        for (const [i, k] of awkward.entries()) {
          expect(secret(someValue(yield* store.getTokens(k)).accessToken)).toBe(`t${i}`)
        }
        yield* store.setClient("https://auth.example.com/tenant?x=../..", client)
        expect(Option.isSome(yield* store.getClient("https://auth.example.com/tenant?x=../.."))).toBe(true)
        expect(Option.isNone(yield* store.getClient("https://auth.example.com/tenant"))).toBe(true)
      })))

    it.effect("deleting what is absent succeeds", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        yield* store.deleteTokens(key)
        yield* store.deleteClient(key.issuer)
        yield* store.deletePending("nope")
      })))

    it.effect("round-trips client registrations, per issuer", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        const preregistered: TokenStore.ClientRegistration = {
          clientId: "public-client",
          source: "preregistered",
          redirectUris: []
        }
        yield* store.setClient(key.issuer, client)
        yield* store.setClient("https://other-issuer.example.com", preregistered)
        expect(exposeClient(someValue(yield* store.getClient(key.issuer)))).toEqual(exposeClient(client))
        expect(exposeClient(someValue(yield* store.getClient("https://other-issuer.example.com")))).toEqual(
          exposeClient(preregistered)
        )
        yield* store.deleteClient(key.issuer)
        expect(Option.isNone(yield* store.getClient(key.issuer))).toBe(true)
        expect(Option.isSome(yield* store.getClient("https://other-issuer.example.com"))).toBe(true)
      })))

    it.effect("round-trips pending authorizations by state", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        yield* store.setPending(pending(0))
        yield* store.setPending(pending(0, "state-second"))
        expect(exposePending(someValue(yield* store.getPending("state-0d9e")))).toEqual(exposePending(pending(0)))
        yield* store.deletePending("state-0d9e")
        expect(Option.isNone(yield* store.getPending("state-0d9e"))).toBe(true)
        expect(someValue(yield* store.getPending("state-second")).state).toBe("state-second")
      })))

    it.effect("expires pending authorizations after 10 minutes by default", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        yield* TestClock.setTime(1_000_000)
        yield* store.setPending(pending(1_000_000))
        yield* TestClock.adjust("599 seconds")
        expect(Option.isSome(yield* store.getPending("state-0d9e"))).toBe(true)
        yield* TestClock.adjust("1 second")
        expect(Option.isNone(yield* store.getPending("state-0d9e"))).toBe(true)
        // An expired entry is gone, not merely hidden.
        yield* TestClock.setTime(0)
        expect(Option.isNone(yield* store.getPending("state-0d9e"))).toBe(true)
      })))

    it.effect("honours a custom pending lifetime", () =>
      run(
        Effect.gen(function*() {
          const store = yield* TokenStore.TokenStore
          yield* store.setPending(pending(0))
          yield* TestClock.adjust("59 seconds")
          expect(Option.isSome(yield* store.getPending("state-0d9e"))).toBe(true)
          yield* TestClock.adjust("1 second")
          expect(Option.isNone(yield* store.getPending("state-0d9e"))).toBe(true)
        }),
        { pendingTtl: "1 minute" }
      ))

    it.effect("keeps every record of concurrent writes", () =>
      run(Effect.gen(function*() {
        const store = yield* TokenStore.TokenStore
        const keys = Array.from({ length: 16 }, (_, i) => ({ ...key, resource: `https://mcp.example.com/${i}` }))
        yield* Effect.forEach(keys, (k, i) => store.setTokens(k, { ...tokens, accessToken: Redacted.make(`c${i}`) }), {
          concurrency: "unbounded"
        })
        const read = yield* Effect.forEach(keys, (k) => store.getTokens(k), { concurrency: "unbounded" })
        expect(read.map((o) => secret(someValue(o).accessToken))).toEqual(keys.map((_, i) => `c${i}`))
      })))
  })
