// Tokens shared by app processes on one Redis (real processes, a real redis-server, the real authorization
// server, which rotates refresh tokens and revokes the whole grant when a spent one comes back).
import { describe, expect, it } from "@effect/vitest"
import { OAuthClient, TokenStore, UrlPolicy } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { browserFor, connect, protectedServer, text } from "../../oauth/test/fixtures/harness.js"
import { appProcess, expectCleanRounds, runRounds, size } from "../../oauth/test/fixtures/tokenProcesses.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisTokenStore from "../src/RedisTokenStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const sealKey = "q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8="
const redisProcess = "packages/kv-redis/test/fixtures/redisTokenProcess.ts"

const storeOn = (url: string, options?: Partial<RedisTokenStore.Options>) =>
  Effect.flatMap(
    RedisClient.make({ url }),
    (client) =>
      Layer.build(
        RedisTokenStore.layer({ key: Redacted.make(sealKey), prefix: "tokens:", ...options }).pipe(
          Layer.provide(Layer.succeed(RedisClient.RedisClient, client))
        )
      ).pipe(Effect.map((context) => context.unsafeMap.get(TokenStore.TokenStore.key) as TokenStore.Service))
  )

describe("RedisTokenStore shared by app processes (real processes, real redis-server)", () => {
  it.scopedLive(
    `${size.processes} processes x ${size.rounds} rounds, short-lived access tokens, rotating refresh tokens revoked on reuse: no reuse, no sign-in, no failed call`,
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        // 3 s access tokens (oidc-provider counts whole seconds: they live 2 to 3 s), refreshed 2.5 s before
        const { auth, mcp } = yield* protectedServer({ accessTokenTtl: 3 })
        const oauth = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
          Layer.provide(browserFor(auth)),
          Layer.provide(Layer.succeed(TokenStore.TokenStore, yield* storeOn(redis.url)))
        )
        const seed = yield* connect(mcp.url, oauth)
        expect(text(yield* seed.mcp.callTool({ name: "read" }))).toBe("read ok")

        const totals = yield* runRounds(redisProcess, {
          REDIS_URL: redis.url,
          SEAL_KEY: sealKey,
          MCP_URL: mcp.url,
          SKEW_MS: "2500",
          PAUSE_MS: "30"
        })
        yield* expectCleanRounds("RedisTokenStore", totals, auth)

        // no key name holds a URL (a server URL can carry an API key)
        const client = yield* RedisClient.make({ url: redis.url })
        const keys = yield* client.use("keys", (r) => r.keys("*"))
        expect(keys.length).toBeGreaterThan(0)
        for (const key of keys) expect(key).not.toMatch(/https?:|127\.0\.0\.1/)
      }),
    // the full target (6 x 200) runs longer than the CI size
    { timeout: Math.max(120_000, size.processes * size.rounds * 400) }
  )

  it.scopedLive(
    "a process killed while it holds the refresh lock costs the others at most the lease",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const lease = 1_500
        const key = { resource: "http://127.0.0.1:1/mcp", issuer: "http://127.0.0.1:2" }
        const holder = yield* appProcess(redisProcess, {
          MODE: "hold",
          REDIS_URL: redis.url,
          SEAL_KEY: sealKey,
          LEASE_MS: String(lease),
          RESOURCE: key.resource,
          ISSUER: key.issuer
        })
        expect(yield* holder.next).toEqual({ step: "holding" })
        const store = yield* storeOn(redis.url, { lock: { ttl: `${lease} millis`, wait: "10 seconds" } })
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
