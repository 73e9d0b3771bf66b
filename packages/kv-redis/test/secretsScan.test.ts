// The hub's secrets scan (hub/test/fixtures/secretsScan.ts) over Redis: the registry's changes, the
// approvals and the history in RedisKeyValueStore, the OAuth tokens in RedisTokenStore. Every key
// name and every value Redis holds afterwards is scanned with the logs, spans, statuses and errors.
import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { scan } from "../../hub/test/fixtures/secretsScan.js"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import * as RedisTokenStore from "../src/RedisTokenStore.js"
import { redisServer } from "./fixtures/redisServer.js"

describe("secrets scan over Redis", () => {
  it.scopedLive(
    "no secret reaches a Redis key name or value, a log, a span, a status or an error",
    () =>
      Effect.gen(function*() {
        const { url } = yield* redisServer
        const client = yield* RedisClient.make({ url })
        const redis = Layer.succeed(RedisClient.RedisClient, client)
        // every key (its name, type and contents), whatever its type
        const bytes = Effect.orDie(client.use("scan", async (r) => {
          const keys = await r.keys("*")
          const entries = await Promise.all(keys.map(async (key) => {
            const type = await r.type(key)
            const value = type === "string"
              ? await r.getBuffer(key).then((b) => b?.toString("latin1"))
              : type === "hash"
              ? await r.hgetall(key)
              : type === "set"
              ? await r.smembers(key)
              : type === "zset"
              ? await r.zrange(key, 0, -1)
              : type === "list"
              ? await r.lrange(key, 0, -1)
              : type
            return `${key} ${type} ${JSON.stringify(value)}`
          }))
          return entries.join("\n")
        }))
        yield* scan({
          storage: RedisKeyValueStore.layer().pipe(Layer.provide(redis)),
          tokens: RedisTokenStore.layer({ key: Redacted.make(Buffer.alloc(32, 5).toString("base64")) }).pipe(
            Layer.provide(redis)
          ),
          bytes
        })
      }),
    { timeout: 60_000 }
  )
})
