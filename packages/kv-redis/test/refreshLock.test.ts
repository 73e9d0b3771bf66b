// The refresh lock, made to matter: two OAuth clients (two engines, as in two processes) on two
// Redis connections, with client A's refresh held open between spending the refresh token and
// saving the new one until B reads the tokens inside its own refresh. Without a lock shared
// through Redis, B spends the same (rotating) refresh token and the authorization server refuses
// it; with the lock, B waits, reads A's new tokens and refreshes nothing.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import { OAuthClient, TokenStore, UrlPolicy } from "@mcp-effect/oauth"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { browserFor, connect, protectedServer, racingStores, text } from "../../oauth/test/fixtures/harness.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisTokenStore from "../src/RedisTokenStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const sealKey = Redacted.make("q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8=")

/** A store on a Redis connection of its own. */
const storeOn = (url: string) =>
  Effect.flatMap(
    RedisClient.make({ url }),
    (client) =>
      Layer.build(
        RedisTokenStore.layer({ key: sealKey, prefix: "lock-test:" }).pipe(
          Layer.provide(Layer.succeed(RedisClient.RedisClient, client))
        )
      ).pipe(Effect.map((context) => context.unsafeMap.get(TokenStore.TokenStore.key) as TokenStore.Service))
  )

const oauthWith = (store: TokenStore.Service, auth: Parameters<typeof browserFor>[0]) =>
  OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
    Layer.provide(browserFor(auth)),
    Layer.provide(Layer.succeed(TokenStore.TokenStore, store))
  )

describe("RedisTokenStore refresh lock", () => {
  it.scopedLive(
    "one refresh for two engines, even when the second reads while the first refreshes",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const { auth, mcp } = yield* protectedServer()
        const key = { resource: mcp.resource, issuer: auth.issuer }

        const plainA = yield* storeOn(redis.url)
        const plainB = yield* storeOn(redis.url)
        const { aSaving, arm, storeA, storeB } = yield* racingStores(plainA, plainB)

        const a = yield* connect(mcp.url, oauthWith(storeA, auth))
        expect(text(yield* a.mcp.callTool({ name: "read" }))).toBe("read ok")
        expect(auth.grants).toEqual(["authorization_code"])

        // the access token expires
        const stored = Option.getOrThrow(yield* plainA.getTokens(key))
        yield* plainA.setTokens(key, { ...stored, expiresAt: Date.now() - 3_600_000 })
        yield* arm

        const callA = yield* Effect.fork(a.mcp.callTool({ name: "read" }))
        yield* Deferred.await(aSaving)
        const b = yield* connect(mcp.url, oauthWith(storeB, auth))
        const resultB = yield* Effect.either(b.mcp.callTool({ name: "read" }))
        const resultA = yield* Fiber.join(callA)

        expect(text(resultA)).toBe("read ok")
        expect(
          resultB._tag === "Right"
            ? text(resultB.right)
            : McpError.isMcpClientError(resultB.left) && resultB.left.message
        )
          .toBe("read ok")
        expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
      }),
    { timeout: 60_000 }
  )
})
