// The SharedStore contract on Redis: two stores, each on a connection of its own, as two processes have.
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { continuationsContract } from "../../core/test/continuations/contract.js"
import { Pair, sharedStoreContract } from "../../core/test/sharedStore/contract.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import { redisServer } from "./fixtures/redisServer.js"

// two clients of one redis-server, as two processes have
const twoClients = Layer.scoped(
  Pair,
  Effect.gen(function*() {
    const server = yield* redisServer
    const storeOn = Effect.flatMap(
      RedisClient.make({ url: server.url }),
      (client) =>
        RedisKeyValueStore.makeShared({ prefix: "app:" }).pipe(Effect.provideService(RedisClient.RedisClient, client))
    )
    return { a: yield* storeOn, b: yield* storeOn }
  })
)
sharedStoreContract("Redis", twoClients)
continuationsContract("Redis", twoClients)
