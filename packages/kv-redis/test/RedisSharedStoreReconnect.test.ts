// Changes made while a subscriber's Redis connection is down are still reported once it is back.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import { redisServer } from "./fixtures/redisServer.js"

describe("Redis SharedStore subscription", () => {
  it.scopedLive(
    "reports the records changed while its connection was down, once it is back",
    () =>
      Effect.gen(function*() {
        const server = yield* redisServer
        const clientA = yield* RedisClient.make({ url: server.url })
        const clientB = yield* RedisClient.make({ url: server.url })
        const storeOn = (client: RedisClient.Service) =>
          RedisKeyValueStore.makeShared({ prefix: "app:" }).pipe(Effect.provideService(RedisClient.RedisClient, client))
        const a = (yield* storeOn(clientA)).collection("servers")
        const b = (yield* storeOn(clientB)).collection("servers")
        yield* b.put("old", "1")

        const changes = yield* a.subscribe
        const seen = new Set<string>()
        const reader = yield* Effect.fork(Stream.runForEach(changes, (id) => Effect.sync(() => seen.add(id))))
        /** Waits until every id was reported, or fails naming those that were not. */
        const waitFor = (ids: ReadonlyArray<string>) =>
          Effect.sleep("20 millis").pipe(
            Effect.repeat({ until: () => ids.every((id) => seen.has(id)) }),
            Effect.timeoutFail({
              duration: "10 seconds",
              onTimeout: () => `not reported: ${ids.filter((id) => !seen.has(id)).join(", ")}`
            })
          )
        yield* b.put("live", "1")
        yield* waitFor(["live"])
        seen.clear()

        // the subscriber's connection drops; the other process writes before it is back
        yield* clientB.use("client kill", (redis) => redis.call("CLIENT", "KILL", "TYPE", "pubsub"))
        yield* b.put("gap", "1")
        yield* b.remove("old")

        const missing = yield* Effect.match(waitFor(["gap", "old"]), {
          onFailure: (why) => why,
          onSuccess: () => "none"
        })
        expect(missing, `seen after the reconnect: ${[...seen].join(", ")}`).toBe("none")
        // and the subscription goes on as before
        yield* b.put("after", "1")
        yield* waitFor(["after"])
        yield* Fiber.interrupt(reader)
      }),
    { timeout: 30_000 }
  )
})
