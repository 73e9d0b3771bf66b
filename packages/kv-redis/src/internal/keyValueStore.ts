import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { RedisClient, type RedisError } from "../RedisClient.js"
import type * as RedisKeyValueStore from "../RedisKeyValueStore.js"

/** @internal */
export const toPlatform = (method: string) => (error: RedisError) =>
  new PlatformError.SystemError({
    reason: "Unknown",
    module: "KeyValueStore",
    method,
    description: error.message,
    cause: error.cause
  })

/** `*`, `?`, `[`, `]` and `\` are pattern characters in `SCAN MATCH`. */
const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`)

/** @internal */
export const make = (
  options: RedisKeyValueStore.Options = {}
): Effect.Effect<KeyValueStore.KeyValueStore, never, RedisClient> =>
  Effect.map(RedisClient, (client) => {
    const prefix = options.prefix ?? "mcp-effect:"
    const k = (key: string) => `${prefix}${key}`
    const run = <A>(method: string, f: (redis: RedisClient["Type"]["redis"]) => Promise<A>) =>
      Effect.mapError(client.use(method, f), toPlatform(method))
    /** Every key under the prefix, a page at a time. */
    const scanAll = run("scan", async (redis) => {
      const keys: Array<string> = []
      let cursor = "0"
      do {
        const [next, page] = await redis.scan(cursor, "MATCH", `${escapeGlob(prefix)}*`, "COUNT", 500)
        cursor = next
        for (const key of page) keys.push(key)
      } while (cursor !== "0")
      return [...new Set(keys)]
    })
    return KeyValueStore.make({
      get: (key) => Effect.map(run("get", (redis) => redis.get(k(key))), Option.fromNullable),
      getUint8Array: (key) =>
        Effect.map(
          run("getUint8Array", (redis) => redis.getBuffer(k(key))),
          (buffer) =>
            Option.map(Option.fromNullable(buffer), (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength))
        ),
      set: (key, value) =>
        Effect.asVoid(run("set", (redis) => redis.set(k(key), typeof value === "string" ? value : Buffer.from(value)))),
      remove: (key) => Effect.asVoid(run("remove", (redis) => redis.del(k(key)))),
      has: (key) => Effect.map(run("has", (redis) => redis.exists(k(key))), (n) => n > 0),
      clear: Effect.flatMap(
        scanAll,
        (keys) => keys.length === 0 ? Effect.void : Effect.asVoid(run("clear", (redis) => redis.unlink(...keys)))
      ),
      size: Effect.map(scanAll, (keys) => keys.length)
    })
  })
