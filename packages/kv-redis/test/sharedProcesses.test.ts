// Two real app processes sharing one Redis: the OAuth tokens one process has are the other's too,
// an expired token is refreshed once for both (the refresh lock), and an "approve always" given in
// one process lets the other call without asking.
import { describe, expect, it } from "@effect/vitest"
import { ServerConfig, ServerRegistry } from "@mcp-effect/hub"
import { NodeHub } from "@mcp-effect/hub/node"
import { TokenStore } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { browserFor, protectedServer } from "../../oauth/test/fixtures/harness.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import * as RedisTokenStore from "../src/RedisTokenStore.js"
import { appProcess } from "./fixtures/appProcesses.js"
import { redisServer } from "./fixtures/redisServer.js"

const sealKey = "q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8="

describe("two app processes on one Redis", () => {
  it.scopedLive("share tokens (one refresh for both) and approvals", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { auth, mcp } = yield* protectedServer()
      const Redis = RedisClient.layer({ url: redis.url })
      const Tokens = RedisTokenStore.layer({ key: Redacted.make(sealKey), prefix: "app:" }).pipe(Layer.provide(Redis))
      const guarded = Either.getOrThrow(ServerConfig.fromEntry("guarded", { url: mcp.url, auth: { type: "oauth2" } }))

      // this process signs in once (a person at the browser), leaving tokens in Redis
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(NodeHub.layer({
          config: [guarded],
          storage: RedisKeyValueStore.layer({ prefix: "app:" }).pipe(Layer.provide(Redis)),
          tokens: Tokens,
          authorizer: browserFor(auth),
          reconnect: { schedule: Schedule.stop }
        }))
        const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
        yield* registry.servers.changes.pipe(
          Stream.filter((list) => list[0]!._tag === "Connected" && list[0]!.toolCount > 0),
          Stream.runHead
        )
      }))
      expect(auth.grants).toEqual(["authorization_code"])

      // the access token expires: both processes will find it so when they start
      yield* Effect.scoped(Effect.gen(function*() {
        const tokens = (yield* Layer.build(Tokens)).unsafeMap.get(TokenStore.TokenStore.key) as TokenStore.Service
        const key = { resource: mcp.resource, issuer: auth.issuer }
        const stored = Option.getOrThrow(yield* tokens.getTokens(key))
        expect(stored.refreshToken).toBeDefined()
        yield* tokens.setTokens(key, { ...stored, expiresAt: Date.now() - 3_600_000 })
      }))

      const env = { REDIS_URL: redis.url, MCP_URL: mcp.url, SEAL_KEY: sealKey }
      const a = yield* appProcess({ ...env, APPROVE: "always" })
      const b = yield* appProcess({ ...env, APPROVE: "deny" })
      expect(yield* a.next).toEqual({ step: "ready" })
      expect(yield* b.next).toEqual({ step: "ready" })
      yield* Effect.all([a.send("go"), b.send("go")])
      const [connectedA, connectedB] = yield* Effect.all([a.next, b.next], { concurrency: 2 })
      expect(connectedA).toMatchObject({ step: "connected", status: "Connected" })
      expect(connectedB).toMatchObject({ step: "connected", status: "Connected" })
      // one refresh for both processes; with rotation, a second one would have been refused
      expect(auth.grants).toEqual(["authorization_code", "refresh_token"])

      // A's person approves "always"; B's would refuse, but is never asked
      yield* a.send("call")
      expect(yield* a.next).toMatchObject({ step: "called", ok: true, asked: 1 })
      yield* b.send("call")
      expect(yield* b.next).toMatchObject({ step: "called", ok: true, asked: 0 })
      // both called with the same (refreshed) access token
      const lastTwo = mcp.tokens.slice(-2)
      expect(lastTwo[0]).toBeDefined()
      expect(lastTwo[0]).toBe(lastTwo[1])
      yield* Effect.all([a.send("exit"), b.send("exit")])
    }), { timeout: 120_000 })
})
