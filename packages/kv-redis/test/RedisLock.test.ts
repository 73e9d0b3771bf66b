import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisLock from "../src/RedisLock.js"
import { redisServer } from "./fixtures/redisServer.js"

const lockOn = (url: string, options?: RedisLock.Options) =>
  Effect.flatMap(
    RedisClient.make({ url }),
    (client) => RedisLock.make(options).pipe(Effect.provideService(RedisClient.RedisClient, client))
  )

describe("RedisLock", () => {
  it.scopedLive("one holder at a time across connections; the next one gets it on release", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const a = yield* lockOn(server.url)
      const b = yield* lockOn(server.url)
      const order: Array<string> = []
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(Effect.scoped(Effect.gen(function*() {
        yield* a("refresh")
        order.push("a in")
        yield* Deferred.succeed(holding, undefined)
        yield* Deferred.await(release)
        order.push("a out")
      })))
      yield* Deferred.await(holding)
      const second = yield* Effect.fork(
        Effect.scoped(Effect.zipRight(b("refresh"), Effect.sync(() => order.push("b in"))))
      )
      // b is waiting while a holds the lock: let a go only after b has tried at least once
      const client = yield* RedisClient.make({ url: server.url })
      expect(yield* client.use("get", (r) => r.pttl("mcp-effect:lock:refresh"))).toBeGreaterThan(0)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(order).toEqual(["a in", "a out", "b in"])
      // released: nothing left behind
      expect(yield* client.use("exists", (r) => r.exists("mcp-effect:lock:refresh"))).toBe(0)
    }))

  it.scopedLive("a lock whose holder vanished expires; an expired holder never deletes the next holder's lock", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const client = yield* RedisClient.make({ url: server.url })
      // a holder that died: its lock is there with a short expiry
      yield* client.use("set", (r) => r.set("mcp-effect:lock:x", "dead-holder", "PX", 200))
      const lock = yield* lockOn(server.url)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* lock("x")
        const token = yield* client.use("get", (r) => r.get("mcp-effect:lock:x"))
        expect(token).not.toBe("dead-holder")
        // someone overwrites the lock (our ttl ran out and another took it): our release must not delete it
        yield* client.use("set", (r) => r.set("mcp-effect:lock:x", "next-holder"))
      }))
      expect(yield* client.use("get", (r) => r.get("mcp-effect:lock:x"))).toBe("next-holder")
    }))

  it.scopedLive("waiting longer than `wait` fails typed", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const client = yield* RedisClient.make({ url: server.url })
      yield* client.use("set", (r) => r.set("mcp-effect:lock:busy", "someone"))
      const lock = yield* lockOn(server.url, { wait: "150 millis" })
      const error = yield* Effect.flip(Effect.scoped(lock("busy")))
      expect(error).toBeInstanceOf(RedisClient.RedisError)
      expect(error.message).toMatch(/stayed taken/)
    }))

  it.scopedLive("a holder keeps its lock past the lease while it holds it (renewed); a holder that stops renewing loses it after the lease", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const a = yield* lockOn(server.url, { ttl: "300 millis" })
      const b = yield* lockOn(server.url, { ttl: "300 millis", wait: "900 millis" })
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(Effect.scoped(Effect.zipRight(
        a("slow"),
        Effect.zipRight(Deferred.succeed(holding, undefined), Deferred.await(release))
      )))
      yield* Deferred.await(holding)
      // three leases later the lock is still A's: B waited 900 ms for nothing
      const error = yield* Effect.flip(Effect.scoped(b("slow")))
      expect(error.message).toMatch(/stayed taken/)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Effect.scoped(b("slow"))

      // a holder that vanished (no renewal): the lock is free within the lease
      const client = yield* RedisClient.make({ url: server.url })
      yield* client.use("set", (r) => r.set("mcp-effect:lock:gone", "dead-holder", "PX", 300))
      const started = Date.now()
      yield* Effect.scoped(b("gone"))
      expect(Date.now() - started).toBeLessThan(600)
    }))
})
