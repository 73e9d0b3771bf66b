// Tokens shared by processes: two OAuth clients (two engines, each on a store instance of its own, as two
// processes would be) on one store directory, against the real authorization server, which rotates refresh
// tokens and revokes the whole grant when a spent one comes back.
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Path from "node:path"
import { KeyValueTokenStore, NodeTokenStore, OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { browserFor, connect, protectedServer, racingStores, text } from "./fixtures/harness.js"
import { appProcess, expectCleanRounds, runRounds, size } from "./fixtures/tokenProcesses.js"

const sealKey = Redacted.make<Uint8Array | string>("q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8=")

/** One "process": a store instance of its own on the shared directory. */
const storeIn = (directory: string) =>
  NodeTokenStore.make({ directory, key: sealKey }).pipe(Effect.provide(NodeContext.layer))

const sharedDirectory = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped()).pipe(
  Effect.map((directory) => Path.join(directory, "tokens")),
  Effect.provide(NodeContext.layer)
)

const oauthWith = (
  store: TokenStore.Service,
  auth: Parameters<typeof browserFor>[0],
  options: OAuthClient.AuthorizationCodeOptions = {}
) =>
  OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment, ...options }).pipe(
    Layer.provide(browserFor(auth)),
    Layer.provide(Layer.succeed(TokenStore.TokenStore, store))
  )

const expire = (store: TokenStore.Service, key: TokenStore.TokenKey) =>
  Effect.flatMap(
    store.getTokens(key),
    (stored) => store.setTokens(key, { ...Option.getOrThrow(stored), expiresAt: Date.now() - 3_600_000 })
  )

describe("tokens shared by processes", () => {
  it.scopedLive(
    "NodeTokenStore: one refresh for two processes, even when the second reads while the first refreshes",
    () =>
      Effect.gen(function*() {
        const directory = yield* sharedDirectory
        const { auth, mcp } = yield* protectedServer()
        const key = { resource: mcp.resource, issuer: auth.issuer }

        const plainA = yield* storeIn(directory)
        const plainB = yield* storeIn(directory)
        const { aSaving, arm, storeA, storeB } = yield* racingStores(plainA, plainB)

        const a = yield* connect(mcp.url, oauthWith(storeA, auth))
        expect(text(yield* a.mcp.callTool({ name: "read" }))).toBe("read ok")
        yield* expire(plainA, key)
        yield* arm

        const callA = yield* Effect.fork(a.mcp.callTool({ name: "read" }))
        yield* Deferred.await(aSaving)
        const b = yield* connect(mcp.url, oauthWith(storeB, auth))
        const resultB = yield* Effect.either(b.mcp.callTool({ name: "read" }))
        const resultA = yield* Fiber.join(callA)

        expect(text(resultA)).toBe("read ok")
        expect(resultB._tag === "Right" ? text(resultB.right) : resultB.left.message).toBe("read ok")
        expect(auth.grantErrors).toEqual([])
        expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
      }),
    { timeout: 30_000 }
  )

  it.scopedLive(
    "a refused refresh never deletes the tokens another process stored meanwhile (compare before delete)",
    () =>
      Effect.gen(function*() {
        const directory = yield* sharedDirectory
        const { auth, mcp } = yield* protectedServer()
        const key = { resource: mcp.resource, issuer: auth.issuer }
        const plain = yield* storeIn(directory)
        const other = yield* storeIn(directory)

        // another process signs in (its own grant) and keeps its tokens aside
        const b = yield* connect(mcp.url, oauthWith(other, auth))
        expect(text(yield* b.mcp.callTool({ name: "read" }))).toBe("read ok")
        const fresh = Option.getOrThrow(yield* other.getTokens(key))
        yield* other.deleteTokens(key)

        // this process signs in, its access token expires, and its grant is revoked
        const a = yield* connect(mcp.url, oauthWith(plain, auth))
        expect(text(yield* a.mcp.callTool({ name: "read" }))).toBe("read ok")
        yield* expire(plain, key)
        const spent = Option.getOrThrow(yield* plain.getTokens(key))
        yield* Effect.promise(() => auth.revokeGrantOf(Redacted.value(spent.refreshToken!)))

        // once A has read the tokens it is about to refresh, the other process writes its own
        let reads = 0
        const storeA: TokenStore.Service = {
          ...plain,
          getTokens: (k) =>
            Effect.tap(plain.getTokens(k), () => ++reads === 2 ? other.setTokens(k, fresh) : Effect.void)
        }
        const a2 = yield* connect(mcp.url, oauthWith(storeA, auth))
        const result = yield* Effect.either(a2.mcp.callTool({ name: "read" }))

        // A's refresh token is refused; the other process's tokens stay, and A uses them
        expect(auth.grantErrors).toContain("invalid_grant")
        const kept = yield* plain.getTokens(key)
        expect(Option.map(kept, (t) => Redacted.value(t.accessToken))).toEqual(
          Option.some(Redacted.value(fresh.accessToken))
        )
        expect(result._tag === "Right" ? text(result.right) : result.left.message).toBe("read ok")
        expect(auth.grants.filter((g) => g === "authorization_code")).toHaveLength(2)
      }),
    { timeout: 30_000 }
  )

  it.scopedLive(
    "a server entry with another client id never reuses a token issued to a different client",
    () =>
      Effect.gen(function*() {
        const directory = yield* sharedDirectory
        const redirect = "http://127.0.0.1:8976/callback"
        const { auth, mcp } = yield* protectedServer({
          publicClients: [{ client_id: "app-one", redirect_uris: [redirect] }, {
            client_id: "app-two",
            redirect_uris: [redirect]
          }]
        })
        const store = yield* storeIn(directory)
        const one = yield* connect(mcp.url, oauthWith(store, auth, { client: { clientId: "app-one" } }))
        expect(text(yield* one.mcp.callTool({ name: "read" }))).toBe("read ok")
        const two = yield* connect(mcp.url, oauthWith(store, auth, { client: { clientId: "app-two" } }))
        expect(text(yield* two.mcp.callTool({ name: "read" }))).toBe("read ok")

        // app-two signed in for itself: the token app-one was issued never went out from it
        expect(auth.grants).toEqual(["authorization_code", "authorization_code"])
        expect(auth.authorizations.map((a) => a.get("client_id"))).toEqual(["app-one", "app-two"])
        const sent = mcp.tokens.filter((t) => t !== undefined)
        expect(new Set(sent).size).toBe(2)
        // and app-one still has its own
        yield* one.mcp.callTool({ name: "read" })
        expect(auth.grants).toHaveLength(2)
      }),
    { timeout: 30_000 }
  )
})

describe("a slow token endpoint under the refresh lock", () => {
  it.scopedLive(
    "the refresh gives up within half the lease (the lock is never held past it), and the next one works",
    () =>
      Effect.gen(function*() {
        const directory = yield* sharedDirectory
        const { auth, mcp } = yield* protectedServer()
        const key = { resource: mcp.resource, issuer: auth.issuer }
        const store = yield* NodeTokenStore.make({ directory, key: sealKey, lock: { lease: "2 seconds" } })
          .pipe(Effect.provide(NodeContext.layer))
        let slow = false
        // the token endpoint takes 10 s to answer while `slow`
        const slowTokenEndpoint = Layer.effect(
          HttpClient.HttpClient,
          Effect.map(HttpClient.HttpClient, (client) =>
            HttpClient.transform(client, (response, request) =>
              slow && request.method === "POST" && new URL(request.url).pathname === "/token"
                ? Effect.delay(response, "10 seconds")
                : response))
        ).pipe(Layer.provide(FetchHttpClient.layer))
        const a = yield* connect(mcp.url, oauthWith(store, auth).pipe(Layer.provide(slowTokenEndpoint)))
        expect(text(yield* a.mcp.callTool({ name: "read" }))).toBe("read ok")
        yield* expire(store, key)

        slow = true
        const started = Date.now()
        const refused = yield* Effect.either(a.mcp.callTool({ name: "read" }))
        const took = Date.now() - started
        expect(refused._tag).toBe("Left")
        // given up after half the lease (1 s), not after the endpoint's 10 s
        expect(took).toBeLessThan(2_000)
        // the lock was released: taken at once
        const free = Date.now()
        yield* Effect.scoped(store.exclusive!(key))
        expect(Date.now() - free).toBeLessThan(1_000)

        slow = false
        expect(text(yield* a.mcp.callTool({ name: "read" }))).toBe("read ok")
        expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
      }),
    { timeout: 30_000 }
  )
})

const nodeProcess = "packages/oauth/test/fixtures/nodeTokenProcess.ts"

describe("NodeTokenStore shared by app processes (real processes, one directory)", () => {
  it.scopedLive(
    `${size.processes} processes x ${size.rounds} rounds, short-lived access tokens, rotating refresh tokens revoked on reuse: no reuse, no sign-in, no failed call`,
    () =>
      Effect.gen(function*() {
        const directory = yield* sharedDirectory
        // oidc-provider rotates refresh tokens and, when a spent one comes back, revokes the whole grant
        // 3 s access tokens (oidc-provider counts whole seconds: they live 2 to 3 s), refreshed 2.5 s before
        const { auth, mcp } = yield* protectedServer({ accessTokenTtl: 3 })
        const seed = yield* connect(mcp.url, oauthWith(yield* storeIn(directory), auth))
        expect(text(yield* seed.mcp.callTool({ name: "read" }))).toBe("read ok")

        const totals = yield* runRounds(nodeProcess, {
          STORE_DIR: directory,
          SEAL_KEY: Redacted.value(sealKey) as string,
          MCP_URL: mcp.url,
          SKEW_MS: "2500",
          PAUSE_MS: "30"
        })
        yield* expectCleanRounds("NodeTokenStore", totals, auth)
      }),
    // the full target (6 x 200) runs longer than the CI size
    { timeout: Math.max(120_000, size.processes * size.rounds * 400) }
  )

  it.scopedLive(
    "a process killed while it holds the refresh lock costs the others at most the lease",
    () =>
      Effect.gen(function*() {
        const directory = yield* sharedDirectory
        const lease = 1_500
        const key = { resource: "http://127.0.0.1:1/mcp", issuer: "http://127.0.0.1:2" }
        const holder = yield* appProcess(nodeProcess, {
          MODE: "hold",
          STORE_DIR: directory,
          SEAL_KEY: Redacted.value(sealKey) as string,
          LEASE_MS: String(lease),
          RESOURCE: key.resource,
          ISSUER: key.issuer
        })
        expect(yield* holder.next).toEqual({ step: "holding" })
        const store = yield* NodeTokenStore.make({
          directory,
          key: sealKey,
          lock: { lease: `${lease} millis`, wait: "10 seconds" }
        })
          .pipe(Effect.provide(NodeContext.layer))
        // held (and renewed past its lease) while the holder lives
        const waited = yield* Effect.either(Effect.timeout(Effect.scoped(store.exclusive!(key)), lease * 2))
        expect(waited._tag).toBe("Left")
        yield* holder.kill
        const started = Date.now()
        yield* Effect.scoped(store.exclusive!(key))
        expect(Date.now() - started).toBeLessThanOrEqual(lease + 500)
      }),
    { timeout: 60_000 }
  )
})

describe("KeyValueTokenStore key names", () => {
  it.effect("hold no URL: records and refresh locks are named by a hash", () =>
    Effect.gen(function*() {
      const entries = new Map<string, string>()
      const kv = KeyValueStore.makeStringOnly({
        get: (k) => Effect.sync(() => Option.fromNullable(entries.get(k))),
        set: (k, value) => Effect.sync(() => void entries.set(k, value)),
        remove: (k) => Effect.sync(() => void entries.delete(k)),
        clear: Effect.sync(() => entries.clear()),
        size: Effect.sync(() => entries.size)
      })
      const locks: Array<string> = []
      const store = yield* KeyValueTokenStore.make({
        key: sealKey,
        lock: (name) => Effect.sync(() => void locks.push(name))
      }).pipe(Effect.provideService(KeyValueStore.KeyValueStore, kv))
      const key = { resource: "https://mcp.example.com/mcp?api_key=sk-live-123", issuer: "https://auth.example.com/t1" }
      yield* store.setTokens(key, { accessToken: Redacted.make("a"), tokenType: "Bearer" })
      yield* store.setClient(key.issuer, { clientId: "c", source: "dynamic", redirectUris: [] })
      yield* Effect.scoped(store.exclusive!(key))
      expect([...entries.keys()]).toHaveLength(2)
      expect(locks).toHaveLength(1)
      for (const name of [...entries.keys(), ...locks]) {
        expect(name).toMatch(/^oauth:(tokens:|client:)?[0-9a-f]{64}$/)
      }
      expect(Option.isSome(yield* store.getTokens(key))).toBe(true)
    }))
})
