import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import type * as RedisClient from "../RedisClient.js"

/**
 * `RedisClient.RedisError`, defined here so that this module builds it without importing the
 * public module (which imports this one).
 */
export class RedisError extends Schema.TaggedError<RedisError>("@mcp-effect/kv-redis/RedisError")("RedisError", {
  operation: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** @internal */
export const fromRedis = (redis: Redis): RedisClient.Service => ({
  redis,
  use: (operation, f) =>
    Effect.tryPromise({
      try: () => f(redis),
      // ioredis errors name the command and its error, never the values sent
      catch: (cause) =>
        new RedisError({
          operation,
          message: `Redis ${operation} failed: ${cause instanceof Error ? cause.message : "error"}`,
          cause
        })
    })
})

/** @internal */
export const make = (options: RedisClient.Options): Effect.Effect<RedisClient.Service, RedisError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      let connected = false
      const redis = new Redis(Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url, {
        lazyConnect: true,
        connectTimeout: Duration.toMillis(options.connectTimeout ?? "10 seconds"),
        // the first connect fails at once; a connection lost later is retried with backoff
        retryStrategy: (times) => connected ? Math.min(times * 200, 5_000) : null,
        maxRetriesPerRequest: 1
      })
      // errors surface through the commands; an unhandled 'error' event would crash the process
      redis.on("error", () => {})
      return Effect.as(
        Effect.tryPromise({
          try: () => redis.connect().then(() => void (connected = true)),
          catch: (cause) => {
            redis.disconnect()
            return new RedisError({ operation: "connect", message: "cannot connect to Redis", cause })
          }
        }),
        fromRedis(redis)
      )
    }),
    ({ redis }) => Effect.promise(() => redis.quit().catch(() => redis.disconnect()))
  )
