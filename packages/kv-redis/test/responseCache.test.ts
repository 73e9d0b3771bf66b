import { describe, expect, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/core/McpClient"
import * as ResponseCache from "@mcp-effect/core/ResponseCache"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as TestServer from "@mcp-effect/core/TestServer"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const tool = (name: string) => ({ name, inputSchema: { type: "object" } })

describe("ResponseCache on Redis", () => {
  it.scoped(
    "private entries never cross identities, public ones are shared, and no key names a server, identity or URI",
    () =>
      Effect.gen(function*() {
        const server = yield* redisServer
        /** A client as another process would have it: its own Redis connection, its own server connection. */
        const clientFor = (identity: string | undefined, tools: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const redis = yield* RedisClient.make({ url: server.url })
            const store = RedisKeyValueStore.layer({ prefix: "app:" }).pipe(
              Layer.provide(Layer.succeed(RedisClient.RedisClient, redis))
            )
            const context = yield* Layer.build(TestServer.layer({
              era: "modern",
              capabilities: { tools: {}, resources: {} },
              handlers: {
                "tools/list": () =>
                  Effect.succeed({
                    resultType: "complete",
                    ttlMs: 60_000,
                    cacheScope: "private",
                    tools: tools.map(tool)
                  }),
                "resources/read": ({ params }) =>
                  Effect.succeed({
                    resultType: "complete",
                    ttlMs: 60_000,
                    cacheScope: "public",
                    contents: [{ uri: params.uri, text: "shared" }]
                  })
              }
            }))
            const client = yield* McpClient.make({
              clientInfo: { name: "app", version: "1" },
              prefetch: false,
              server: "github-secret-server"
            }).pipe(
              Effect.provide(Layer.mergeAll(
                Layer.succeedContext(context),
                ResponseCache.layer(identity === undefined ? {} : { identity: Redacted.make(identity) }).pipe(
                  Layer.provide(store)
                )
              ))
            )
            const test = Context.get(context, TestServer.TestServer)
            const sent = (method: string) =>
              Effect.map(
                test.received,
                (messages) => messages.filter((m) => "method" in m && m.method === method).length
              )
            return { client, sent, redis }
          })

        const alice = yield* clientFor("alice@example.com", ["alice-tool"])
        const bob = yield* clientFor("bob@example.com", ["bob-tool"])
        const aliceAgain = yield* clientFor("alice@example.com", ["never-fetched"])

        yield* alice.client.listTools
        // bob is not served alice's private list: he fetches his own
        const forBob = yield* ResponseCache.cached(bob.client.listTools)
        expect(forBob.fromCache).toBe(false)
        expect(forBob.value.map((t) => t.name)).toEqual(["bob-tool"])
        // alice in "another process" is
        const forAlice = yield* ResponseCache.cached(aliceAgain.client.listTools)
        expect(forAlice.fromCache).toBe(true)
        expect(forAlice.value.map((t) => t.name)).toEqual(["alice-tool"])
        expect(yield* aliceAgain.sent("tools/list")).toBe(0)

        // a public read is shared across identities
        yield* alice.client.readResource("file:///private/notes.txt")
        const shared = yield* ResponseCache.cached(bob.client.readResource("file:///private/notes.txt"))
        expect(shared.fromCache).toBe(true)
        expect(yield* bob.sent("resources/read")).toBe(0)

        const keys = yield* alice.redis.use("keys", (redis) => redis.keys("*"))
        expect(keys.length).toBeGreaterThan(0)
        for (const key of keys) {
          expect(key).not.toMatch(/alice|bob|example|github|secret|file|notes/)
        }
      }),
    30_000
  )

  it.scopedLive(
    "two processes storing entries at once both stay in the partition's index: one invalidation drops both",
    () =>
      Effect.gen(function*() {
        const server = yield* redisServer
        // the first two reads of an index record return only once both are done: both read it before either writes
        const arrived = yield* Ref.make(0)
        const both = yield* Deferred.make<void>()
        const racing = (shared: SharedStore.Service): SharedStore.Service => ({
          ...shared,
          collection: (name) => {
            const records = shared.collection(name)
            return {
              ...records,
              get: (id) =>
                Effect.tap(records.get(id), () =>
                  Effect.flatMap(
                    Ref.updateAndGet(arrived, (n) => n + 1),
                    (n) => n > 2 ? Effect.void : n === 2 ? Deferred.succeed(both, undefined) : Deferred.await(both)
                  ))
            }
          }
        })
        /** A client as another process would have it: its own Redis connections, its own server connection. */
        const clientOf = Effect.gen(function*() {
          const redis = yield* RedisClient.make({ url: server.url })
          const store = yield* Layer.build(
            RedisKeyValueStore.layer({ prefix: "app:" }).pipe(
              Layer.provide(Layer.succeed(RedisClient.RedisClient, redis))
            )
          )
          const context = yield* Layer.build(TestServer.layer({
            era: "modern",
            capabilities: { resources: { subscribe: true } },
            handlers: {
              "resources/read": ({ params }) =>
                Effect.succeed({
                  resultType: "complete",
                  ttlMs: 60_000,
                  cacheScope: "public",
                  contents: [{ uri: params.uri, text: "shared" }]
                })
            }
          }))
          const client = yield* McpClient.make({
            clientInfo: { name: "app", version: "1" },
            prefetch: false,
            server: "s"
          })
            .pipe(
              Effect.provide(Layer.mergeAll(
                Layer.succeedContext(context),
                ResponseCache.layer().pipe(
                  Layer.provide(Layer.succeedContext(
                    Context.add(store, SharedStore.SharedStore, racing(Context.get(store, SharedStore.SharedStore)))
                  ))
                )
              ))
            )
          return { client, test: Context.get(context, TestServer.TestServer) }
        })
        const [one, two] = yield* Effect.all([clientOf, clientOf])
        yield* Effect.all([one.client.readResource("file:///a"), two.client.readResource("file:///b")], {
          concurrency: 2
        })
        expect(yield* Ref.get(arrived)).toBeGreaterThanOrEqual(2)
        expect((yield* ResponseCache.cached(two.client.readResource("file:///a"))).fromCache).toBe(true)
        expect((yield* ResponseCache.cached(one.client.readResource("file:///b"))).fromCache).toBe(true)
        yield* one.test.notify("notifications/resources/updated", { uri: "file:///a" })
        yield* one.test.notify("notifications/resources/updated", { uri: "file:///b" })
        yield* Effect.repeat(ResponseCache.cached(two.client.readResource("file:///a")), {
          until: (r) => !r.fromCache,
          schedule: Schedule.spaced("10 millis")
        })
        expect((yield* ResponseCache.cached(two.client.readResource("file:///b"))).fromCache).toBe(false)
      }),
    30_000
  )
})
