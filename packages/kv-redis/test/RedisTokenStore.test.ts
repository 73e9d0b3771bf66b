import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { TokenStore } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { contractSuite, key, secrets, tokens } from "../../oauth/test/stores/contract.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisTokenStore from "../src/RedisTokenStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const sealKey = Redacted.make("q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8=")
const scope = Effect.runSync(Scope.make())
let url = ""
beforeAll(() => Effect.runPromise(Effect.map(Scope.extend(redisServer, scope), (server) => void (url = server.url))))
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

let stores = 0
const fresh = (options?: TokenStore.StoreOptions) =>
  RedisTokenStore.layer({ key: sealKey, prefix: `t${++stores}:`, ...options }).pipe(
    Layer.provide(Layer.suspend(() => RedisClient.layer({ url })))
  )

contractSuite("Redis", fresh)

describe("RedisTokenStore", () => {
  it.scoped("two instances (two connections) with the same key share tokens; Redis holds only sealed records", () =>
    Effect.gen(function*() {
      const prefix = "shared:"
      const open = Effect.flatMap(
        RedisClient.make({ url }),
        (client) =>
          Layer.build(
            RedisTokenStore.layer({ key: sealKey, prefix }).pipe(
              Layer.provide(Layer.succeed(RedisClient.RedisClient, client))
            )
          ).pipe(Effect.map((context) => context.unsafeMap.get(TokenStore.TokenStore.key) as TokenStore.Service))
      )
      const a = yield* open
      const b = yield* open
      yield* a.setTokens(key, tokens)
      const read = yield* b.getTokens(key)
      expect(read._tag === "Some" && Redacted.value(read.value.accessToken)).toBe("access-token-3f9a1c")
      const client = yield* RedisClient.make({ url })
      const keys = yield* client.use("keys", (r) => r.keys(`${prefix}*`))
      expect(keys).toHaveLength(1)
      const raw = yield* client.use("get", (r) => r.get(keys[0]!))
      for (const secret of [...secrets, key.resource]) expect(raw).not.toContain(secret)
      expect(b.exclusive).toBeDefined()
    }))

  it.scoped("a store with another key cannot read them (typed error, no secret)", () =>
    Effect.gen(function*() {
      const client = yield* RedisClient.make({ url })
      const build = (k: string) =>
        Layer.build(
          RedisTokenStore.layer({ key: Redacted.make(k), prefix: "keys:" }).pipe(
            Layer.provide(Layer.succeed(RedisClient.RedisClient, client))
          )
        ).pipe(Effect.map((context) => context.unsafeMap.get(TokenStore.TokenStore.key) as TokenStore.Service))
      const a = yield* build("q4b7S8kX1m2N3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8=")
      const b = yield* build("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
      yield* a.setTokens(key, tokens)
      const error = yield* Effect.flip(b.getTokens(key))
      expect(error).toBeInstanceOf(TokenStore.TokenStoreError)
      expect(error.message).toMatch(/different key/)
    }))
})
