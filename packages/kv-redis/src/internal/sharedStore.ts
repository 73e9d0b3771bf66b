import type * as PlatformError from "@effect/platform/Error"
import type * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { Redis } from "ioredis"
import { RedisClient, RedisError } from "../RedisClient.js"
import type * as RedisKeyValueStore from "../RedisKeyValueStore.js"
import { toPlatform } from "./keyValueStore.js"

/** Runs a `MULTI` and fails if any of its commands did. */
const exec = async (multi: ReturnType<Redis["multi"]>) => {
  const results = await multi.exec()
  if (results === null) throw new Error("transaction aborted")
  for (const [error] of results) if (error) throw error
}

/**
 * The record (KEYS[1]) replaced by ARGV[3] only if it is ARGV[2] (ARGV[1] = "1") or absent
 * (ARGV[1] = "0"); its id (ARGV[4]) added to the set (KEYS[2]) and published (KEYS[3]), like `put`.
 * A script runs alone on the server: no other command comes between the read and the write.
 */
const compareAndSet = `
local current = redis.call("GET", KEYS[1])
if ARGV[1] == "1" then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
redis.call("SET", KEYS[1], ARGV[3])
redis.call("SADD", KEYS[2], ARGV[4])
redis.call("PUBLISH", KEYS[3], ARGV[4])
return 1
`

const byId = (a: readonly [string, string], b: readonly [string, string]) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0

/** @internal */
export const make = (
  options: RedisKeyValueStore.Options = {}
): Effect.Effect<SharedStore.Service, never, RedisClient> =>
  Effect.map(RedisClient, (client) => {
    const run = <A>(method: string, f: (redis: Redis) => Promise<A>) =>
      Effect.mapError(client.use(method, f), toPlatform(method))
    const root = `${options.prefix ?? "mcp-effect:"}@records:`
    return {
      shared: true,
      collection: (name) => {
        // a collection's name is percent-encoded, so the parts after it cannot be mistaken
        const base = `${root}${encodeURIComponent(name)}:`
        const ids = `${base}ids`
        const channel = `${base}changes`
        const recordKey = (id: string) => `${base}r:${id}`
        return {
          get: (id) => Effect.map(run("get", (redis) => redis.get(recordKey(id))), Option.fromNullable),
          // the record, its id in the set and the news of it, all or none
          put: (id, value) =>
            run("put", (redis) => exec(redis.multi().set(recordKey(id), value).sadd(ids, id).publish(channel, id))),
          compareAndSet: (id, expected, value) =>
            Effect.map(
              run("compareAndSet", (redis) =>
                redis.eval(
                  compareAndSet,
                  3,
                  recordKey(id),
                  ids,
                  channel,
                  Option.isSome(expected) ? "1" : "0",
                  Option.getOrElse(expected, () => ""),
                  value,
                  id
                )),
              (wrote) => wrote === 1
            ),
          remove: (id) =>
            run("remove", (redis) => exec(redis.multi().del(recordKey(id)).srem(ids, id).publish(channel, id))),
          list: run("list", async (redis) => {
            const members = await redis.smembers(ids)
            if (members.length === 0) return []
            const values = await redis.mget(members.map(recordKey))
            return members.flatMap((id, i) => {
              const value = values[i]
              return value === null || value === undefined ? [] : [[id, value] as const]
            }).sort(byId)
          }),
          subscribe: Effect.gen(function*() {
            // a subscribed connection can do nothing else: one of its own, closed with the scope
            const subscriber = yield* Effect.acquireRelease(
              Effect.sync(() => {
                const redis = client.redis.duplicate({ lazyConnect: true })
                redis.on("error", () => {})
                return redis
              }),
              (redis) => Effect.promise(() => redis.quit().catch(() => redis.disconnect()))
            )
            const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
            // the ids this subscription may have told of: what was there when it began and every change since
            let known = new Set<string>()
            subscriber.on("message", (from: string, id: string) => {
              if (from !== channel) return
              known.add(id)
              Queue.unsafeOffer(queue, id)
            })
            // what is published while the connection is down is lost: once it is back (and
            // subscribed again), every id that may have changed is reported, removed ones too
            let connected = false
            subscriber.on("ready", () => {
              if (!connected) {
                connected = true
                return
              }
              subscriber.subscribe(channel).then(() => client.redis.smembers(ids)).then((members) => {
                const before = known
                known = new Set(members)
                for (const id of new Set([...before, ...members])) Queue.unsafeOffer(queue, id)
              }, () => {
                // the connection dropped again: its next "ready" reports these too
              })
            })
            yield* Effect.tryPromise({
              try: () =>
                subscriber.connect().then(() => subscriber.subscribe(channel)).then(() => client.redis.smembers(ids))
                  .then(
                    (members) => {
                      for (const id of members) known.add(id)
                    }
                  ),
              catch: (cause) =>
                toPlatform("subscribe")(
                  new RedisError({ operation: "subscribe", message: "cannot subscribe to Redis", cause })
                )
            })
            return Stream.fromQueue(queue)
          }) satisfies Effect.Effect<Stream.Stream<string>, PlatformError.PlatformError, unknown>
        }
      }
    }
  })
