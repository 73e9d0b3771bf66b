import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { keyValueContract } from "../../hub/test/storage/contract.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const Redis = Layer.unwrapScoped(Effect.map(redisServer, (server) => RedisClient.layer({ url: server.url })))

keyValueContract("Redis", RedisKeyValueStore.layer({ prefix: "contract:" }).pipe(Layer.provide(Redis)))

describe("RedisKeyValueStore", () => {
  it.scoped("two stores on one Redis share data under one prefix; clear and size keep to their prefix", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      // each store on a connection of its own, as two processes would be
      const storeOn = (prefix: string) =>
        Effect.flatMap(
          RedisClient.make({ url: server.url }),
          (client) => RedisKeyValueStore.make({ prefix }).pipe(Effect.provideService(RedisClient.RedisClient, client))
        )
      const a = yield* storeOn("app:")
      const b = yield* storeOn("app:")
      const other = yield* storeOn("other*")
      yield* a.set("k", "from a")
      expect(yield* b.get("k")).toEqual(Option.some("from a"))
      yield* other.set("k", "other")
      expect(yield* a.size).toBe(1)
      yield* a.clear
      expect(yield* other.get("k")).toEqual(Option.some("other"))
      expect(yield* b.get("k")).toEqual(Option.none())
    }))

  it.scoped("an unreachable Redis fails the build typed, not with a defect", () =>
    Effect.gen(function*() {
      const server = yield* Effect.scoped(redisServer) // started and stopped: the port is closed now
      const error = yield* Effect.flip(Layer.build(RedisClient.layer({ url: server.url })))
      expect(error).toBeInstanceOf(RedisClient.RedisError)
      expect(error.operation).toBe("connect")
    }))

  it.scoped("a command on a closed connection fails as a PlatformError", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const client = yield* Effect.scoped(RedisClient.make({ url: server.url }))
      const store = yield* RedisKeyValueStore.make().pipe(Effect.provideService(RedisClient.RedisClient, client))
      const error = yield* Effect.flip(store.get("k"))
      expect(error._tag).toBe("SystemError")
    }))
})
