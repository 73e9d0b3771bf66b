import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { RedisClient, RedisError } from "../RedisClient.js"
import type * as RedisLock from "../RedisLock.js"

/** Deletes the lock only while it still holds our token (it may have expired and been taken by another). */
const release = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`

/** Extends the lock's expiry only while it still holds our token. */
const renew =
  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`

/** @internal */
export const defaultTtl: Duration.Duration = Duration.seconds(10)

class Busy {
  readonly _tag = "Busy"
}

/** @internal */
export const make = (options: RedisLock.Options = {}): Effect.Effect<RedisLock.Lock, never, RedisClient> =>
  Effect.map(RedisClient, (client) => {
    const prefix = options.prefix ?? "mcp-effect:lock:"
    const ttl = Math.max(3, Math.round(Duration.toMillis(options.ttl ?? defaultTtl)))
    const renewEvery = Duration.millis(Math.floor(ttl / 3))
    const wait = options.wait ?? "60 seconds"
    const every = options.retryEvery ?? "25 millis"
    return (name: string) => {
      const key = `${prefix}${name}`
      const token = globalThis.crypto.randomUUID()
      // one attempt takes the lock and registers its release, or fails Busy and registers nothing;
      // acquisition is uninterruptible, so the waiting (and its timeout) stays outside it
      const attempt = Effect.acquireRelease(
        Effect.flatMap(
          client.use("lock", (redis) => redis.set(key, token, "PX", ttl, "NX")),
          (ok) => ok === "OK" ? Effect.void : Effect.fail(new Busy())
        ),
        () => Effect.ignore(client.use("unlock", (redis) => redis.eval(release, 1, key, token)))
      )
      // while held, the expiry is pushed back every third of it; it stops when the scope closes (or the process
      // dies: the others then wait at most `ttl`), or when the lock is no longer ours
      const renewal = client.use("renew lock", (redis) => redis.eval(renew, 1, key, token, ttl)).pipe(
        Effect.flatMap((renewed) => renewed === 1 ? Effect.void : Effect.fail(new Busy())),
        Effect.repeat(Schedule.spaced(renewEvery)),
        Effect.delay(renewEvery),
        Effect.ignore
      )
      const taken = () => new RedisError({ operation: "lock", message: `the lock ${name} stayed taken` })
      return attempt.pipe(
        Effect.retry({ schedule: Schedule.spaced(every), while: (e) => e instanceof Busy }),
        Effect.timeoutFail({ duration: wait, onTimeout: taken }),
        Effect.catchIf((e): e is Busy => e instanceof Busy, () => Effect.fail(taken())),
        Effect.zipRight(Effect.forkScoped(renewal)),
        Effect.asVoid
      )
    }
  })
