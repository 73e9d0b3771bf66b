import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as ResponseCache from "../src/ResponseCache.js"
import * as Roots from "../src/Roots.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, eventually } from "./utils.js"

const tool = (name: string) => ({ name, inputSchema: { type: "object" } })
const complete = (hints: Record<string, unknown>, result: Record<string, unknown>) => ({
  resultType: "complete",
  ...hints,
  ...result
})
const publicMinute = { ttlMs: 60_000, cacheScope: "public" }
const privateMinute = { ttlMs: 60_000, cacheScope: "private" }

/** A modern test server and a client named `srv` on it, with a cache over the test's `KeyValueStore`. */
const clientOf = (
  server: TestServer.Options,
  cache: ResponseCache.Options = {},
  extra: Layer.Layer<never> | Layer.Layer<Roots.Roots> = Layer.empty
) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(TestServer.layer({ era: "modern", ...server }))
    const client = yield* McpClient.make({ clientInfo, prefetch: false, server: "srv" }).pipe(
      Effect.provide(Layer.mergeAll(Layer.succeedContext(context), ResponseCache.layer(cache), extra))
    )
    const test = Context.get(context, TestServer.TestServer)
    const sent = (method: string) =>
      Effect.map(test.received, (messages) => messages.filter((m) => "method" in m && m.method === method).length)
    return { client, test, sent }
  })

const toolsServer = (hints: Record<string, unknown>, names: ReadonlyArray<string> = ["a"]) => ({
  handlers: { "tools/list": () => Effect.succeed(complete(hints, { tools: names.map(tool) })) }
})

const memory = KeyValueStore.layerMemory

const receivedCount = (context: Context.Context<TestServer.TestServer>, method: string) =>
  Effect.map(
    Context.get(context, TestServer.TestServer).received,
    (messages) => messages.filter((m) => "method" in m && m.method === method).length
  )

/** Waits (real time, a few ms a round: the cache hashes with WebCrypto, a promise) until `check` holds. */
const until = <A, E, R>(check: Effect.Effect<A | false, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(check, (value) =>
    value === false ?
      Effect.zipRight(Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5))), until(check)) :
      Effect.succeed(value))

describe("ResponseCache", () => {
  it.scoped("a result is served from the cache while fresh, and fetched again once its ttlMs has passed", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* clientOf(toolsServer(publicMinute))
      expect((yield* client.listTools).map((t) => t.name)).toEqual(["a"])
      const second = yield* ResponseCache.cached(client.listTools)
      expect(second).toMatchObject({ fromCache: true, stale: false, offline: false, storedAt: 0 })
      expect(yield* sent("tools/list")).toBe(1)
      yield* TestClock.adjust("59999 millis")
      expect((yield* ResponseCache.cached(client.listTools)).fromCache).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect((yield* ResponseCache.cached(client.listTools)).fromCache).toBe(false)
      expect(yield* sent("tools/list")).toBe(2)
    }).pipe(Effect.provide(memory)))

  it.scoped("an absent ttlMs is 0: every use fetches again", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* clientOf(toolsServer({ cacheScope: "public" }))
      yield* client.listTools
      yield* client.listTools
      expect(yield* sent("tools/list")).toBe(2)
    }).pipe(Effect.provide(memory)))

  it.scoped("pages are keyed apart by their cursor: a second listing is served both pages from the cache", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* clientOf({
        handlers: {
          "tools/list": ({ params }) =>
            Effect.succeed(
              params.cursor === undefined ?
                complete(publicMinute, { tools: [tool("a")], nextCursor: "p2" }) :
                complete(publicMinute, { tools: [tool("b")] })
            )
        }
      })
      expect((yield* client.listTools).map((t) => t.name)).toEqual(["a", "b"])
      expect(yield* sent("tools/list")).toBe(2)
      const again = yield* ResponseCache.cached(client.listTools)
      expect(again.value.map((t) => t.name)).toEqual(["a", "b"])
      expect(again.fromCache).toBe(true)
      expect(yield* sent("tools/list")).toBe(2)
    }).pipe(Effect.provide(memory)))

  it.scoped("a result given to a retry with inputResponses is never cached", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* clientOf(
        {
          capabilities: { resources: {} },
          handlers: {
            "resources/read": ({ params }) =>
              Effect.succeed(
                params.inputResponses === undefined ?
                  { resultType: "input_required", inputRequests: { r: { method: "roots/list" } }, requestState: "s" } :
                  complete(publicMinute, { contents: [{ uri: "file:///a", text: "a" }] })
              )
          }
        },
        {},
        Roots.layer([{ uri: "file:///work", name: "work" }])
      )
      yield* client.readResource("file:///a")
      const second = yield* ResponseCache.cached(client.readResource("file:///a"))
      expect(second).toMatchObject({ fromCache: false, value: { contents: [{ text: "a" }] } })
      expect(yield* sent("resources/read")).toBe(4)
    }).pipe(Effect.provide(memory)))

  it.scoped("resources/read is keyed by its URI, and resources/updated deletes that URI's entry", () =>
    Effect.gen(function*() {
      let version = 0
      const { client, sent, test } = yield* clientOf({
        capabilities: { resources: { subscribe: true } },
        handlers: {
          "resources/read": ({ params }) =>
            Effect.succeed(
              complete(publicMinute, { contents: [{ uri: params.uri, text: `${params.uri}@${version}` }] })
            )
        }
      })
      yield* client.readResource("file:///a")
      yield* client.readResource("file:///b")
      version = 1
      expect((yield* client.readResource("file:///a")).contents[0]).toMatchObject({ text: "file:///a@0" })
      expect(yield* sent("resources/read")).toBe(2)
      yield* test.notify("notifications/resources/updated", { uri: "file:///a" })
      yield* until(Effect.map(ResponseCache.cached(client.readResource("file:///a")), (r) => !r.fromCache && r))
      // b's entry stays
      expect((yield* ResponseCache.cached(client.readResource("file:///b"))).fromCache).toBe(true)
    }).pipe(Effect.provide(memory)))

  it.scoped("tools/list_changed deletes the tools entries; the refresh it starts stores the new list", () =>
    Effect.gen(function*() {
      let names = ["a"]
      const { client, test } = yield* clientOf({
        handlers: { "tools/list": () => Effect.succeed(complete(publicMinute, { tools: names.map(tool) })) }
      })
      yield* client.listTools
      names = ["a", "b"]
      yield* test.notify("notifications/tools/list_changed")
      const fresh = yield* until(Effect.map(client.tools.get, (tools) => tools.length === 2 && tools))
      expect(fresh.map((t) => t.name)).toEqual(["a", "b"])
      expect((yield* ResponseCache.cached(client.listTools)).value.map((t) => t.name)).toEqual(["a", "b"])
    }).pipe(Effect.provide(memory)))

  it.scoped("refresh fetches and stores; bypass fetches and neither reads nor writes", () =>
    Effect.gen(function*() {
      let names = ["a"]
      const { client, sent } = yield* clientOf({
        handlers: { "tools/list": () => Effect.succeed(complete(publicMinute, { tools: names.map(tool) })) }
      })
      yield* client.listTools
      names = ["b"]
      const bypassed = yield* ResponseCache.cached(client.listTools, "bypass")
      expect(bypassed).toMatchObject({ fromCache: false })
      expect(bypassed.value.map((t) => t.name)).toEqual(["b"])
      // bypass wrote nothing: "use" still sees the first list
      expect((yield* client.listTools).map((t) => t.name)).toEqual(["a"])
      const refreshed = yield* ResponseCache.withMode(client.listTools, "refresh")
      expect(refreshed.map((t) => t.name)).toEqual(["b"])
      expect((yield* client.listTools).map((t) => t.name)).toEqual(["b"])
      expect(yield* sent("tools/list")).toBe(3)
    }).pipe(Effect.provide(memory)))

  it.scoped("a public entry is shared by two clients of the same server", () =>
    Effect.gen(function*() {
      const one = yield* clientOf(toolsServer(publicMinute), { identity: Redacted.make("alice") })
      const two = yield* clientOf(toolsServer(publicMinute), { identity: Redacted.make("bob") })
      yield* one.client.listTools
      expect((yield* ResponseCache.cached(two.client.listTools)).fromCache).toBe(true)
      expect(yield* two.sent("tools/list")).toBe(0)
    }).pipe(Effect.provide(memory)))

  it.scoped("two writers racing for one partition's index both keep their line: an invalidation drops both entries", () =>
    Effect.gen(function*() {
      // the first two reads of an index return only once both are done: both writers read it before either writes
      const base = yield* KeyValueStore.KeyValueStore
      const arrived = yield* Ref.make(0)
      const both = yield* Deferred.make<void>()
      const racing: KeyValueStore.KeyValueStore = KeyValueStore.make({
        get: (key) =>
          key.includes("index") ?
            Effect.flatMap(base.get(key), (value) =>
              Effect.flatMap(
                Ref.updateAndGet(arrived, (n) => n + 1),
                (n) =>
                  Effect.as(
                    n > 2 ? Effect.void : n === 2 ? Deferred.succeed(both, undefined) : Deferred.await(both),
                    value
                  )
              )) :
            base.get(key),
        getUint8Array: base.getUint8Array,
        set: base.set,
        remove: base.remove,
        clear: base.clear,
        size: base.size
      })
      const server: TestServer.Options = {
        capabilities: { resources: { subscribe: true } },
        handlers: {
          "resources/read": ({ params }) =>
            Effect.succeed(complete(publicMinute, { contents: [{ uri: params.uri, text: `${params.uri}` }] }))
        }
      }
      const [one, two] = yield* Effect.all([clientOf(server), clientOf(server)]).pipe(
        Effect.provideService(KeyValueStore.KeyValueStore, racing)
      )
      yield* Effect.all([one.client.readResource("file:///a"), two.client.readResource("file:///b")], {
        concurrency: 2
      })
      expect(yield* Ref.get(arrived)).toBeGreaterThanOrEqual(2)
      expect((yield* ResponseCache.cached(two.client.readResource("file:///a"))).fromCache).toBe(true)
      expect((yield* ResponseCache.cached(one.client.readResource("file:///b"))).fromCache).toBe(true)
      // one process hears both updates: the index it reads must list both entries for both to go
      yield* one.test.notify("notifications/resources/updated", { uri: "file:///a" })
      yield* one.test.notify("notifications/resources/updated", { uri: "file:///b" })
      yield* until(Effect.map(ResponseCache.cached(two.client.readResource("file:///a")), (r) => !r.fromCache && r))
      expect((yield* ResponseCache.cached(two.client.readResource("file:///b"))).fromCache).toBe(false)
    }).pipe(Effect.provide(memory)))

  it.scoped("a private entry is served to its identity only, and not stored without one", () =>
    Effect.gen(function*() {
      const alice = yield* clientOf(toolsServer(privateMinute, ["mine"]), { identity: Redacted.make("alice") })
      const bob = yield* clientOf(toolsServer(privateMinute, ["bobs"]), { identity: Redacted.make("bob") })
      const anonymous = yield* clientOf(toolsServer(privateMinute, ["anon"]))
      yield* alice.client.listTools
      const forBob = yield* ResponseCache.cached(bob.client.listTools)
      expect(forBob.fromCache).toBe(false)
      expect(forBob.value.map((t) => t.name)).toEqual(["bobs"])
      expect((yield* ResponseCache.cached(alice.client.listTools)).value.map((t) => t.name)).toEqual(["mine"])
      yield* anonymous.client.listTools
      expect((yield* ResponseCache.cached(anonymous.client.listTools)).fromCache).toBe(false)
      // an unknown scope counts as private
      const odd = yield* clientOf(toolsServer({ ttlMs: 60_000, cacheScope: "everyone" }))
      yield* odd.client.listTools
      expect((yield* ResponseCache.cached(odd.client.listTools)).fromCache).toBe(false)
      // no key names the identity, the server or a URI
      const store = yield* KeyValueStore.KeyValueStore
      expect(yield* store.size).toBeGreaterThan(0)
    }).pipe(Effect.provide(memory)))

  it.scoped("legacy results carry no hints and are cached only with the app's opt-in", () =>
    Effect.gen(function*() {
      const legacyTools = {
        era: "legacy" as const,
        handlers: { "tools/list": () => Effect.succeed({ tools: [tool("a")] }) }
      }
      const plain = yield* clientOf(legacyTools)
      yield* plain.client.listTools
      yield* plain.client.listTools
      expect(yield* plain.sent("tools/list")).toBe(2)
      const optedIn = yield* clientOf(legacyTools, { legacy: { ttl: "1 minute", scope: "public" } })
      yield* optedIn.client.listTools
      expect((yield* ResponseCache.cached(optedIn.client.listTools)).fromCache).toBe(true)
      expect(yield* optedIn.sent("tools/list")).toBe(1)
    }).pipe(Effect.provide(memory)))

  it.scoped("an entry over maxEntryBytes is not stored; a partition keeps maxEntries, the oldest dropped", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* clientOf(
        {
          capabilities: { resources: {} },
          handlers: {
            "resources/read": ({ params }) =>
              Effect.succeed(complete(publicMinute, {
                contents: [{ uri: params.uri, text: params.uri === "big" ? "x".repeat(2000) : "small" }]
              }))
          }
        },
        { maxEntryBytes: 1000, maxEntries: 2 }
      )
      yield* client.readResource("big")
      expect((yield* ResponseCache.cached(client.readResource("big"))).fromCache).toBe(false)
      for (const uri of ["u1", "u2", "u3"]) {
        yield* client.readResource(uri)
        yield* TestClock.adjust("1 millis")
      }
      expect((yield* ResponseCache.cached(client.readResource("u3"))).fromCache).toBe(true)
      expect((yield* ResponseCache.cached(client.readResource("u2"))).fromCache).toBe(true)
      expect((yield* ResponseCache.cached(client.readResource("u1"))).fromCache).toBe(false)
      expect(yield* sent("resources/read")).toBe(6)
      const store = yield* KeyValueStore.KeyValueStore
      // two entries, the partition's index record, and the list of index records (a SharedStore over the KeyValueStore)
      expect(yield* store.size).toBe(4)
    }).pipe(Effect.provide(memory)))

  it.scoped(
    "server down: lists are served stale and flagged offline, callTool fails fast with ServerUnavailable; " +
      "after the reconnect the next use revalidates",
    () =>
      Effect.gen(function*() {
        const { client, sent, test } = yield* clientOf({
          ...toolsServer({ ttlMs: 1000, cacheScope: "public" }),
          reconnect: { schedule: Schedule.spaced("10 seconds") }
        })
        yield* client.listTools
        yield* TestClock.adjust("5 seconds")
        yield* test.dropConnection
        yield* eventually(Effect.map(client.state.get, (s) => s._tag === "Reconnecting"))
        const offline = yield* ResponseCache.cached(client.listTools)
        expect(offline).toMatchObject({ fromCache: true, stale: true, offline: true, storedAt: 0 })
        expect(offline.value.map((t) => t.name)).toEqual(["a"])
        const error = yield* Effect.flip(client.callTool({ name: "a" }))
        expect(error).toBeInstanceOf(McpError.ServerUnavailable)
        expect(error).toMatchObject({ _tag: "ServerUnavailable", server: "srv", method: "tools/call", since: 5000 })
        expect(error.message).toContain("srv")
        expect(error.message).toContain(new Date(5000).toISOString())
        expect(yield* sent("tools/call")).toBe(0)
        yield* TestClock.adjust("10 seconds")
        yield* client.initialized
        const revalidated = yield* ResponseCache.cached(client.listTools)
        expect(revalidated).toMatchObject({ fromCache: false, offline: false })
        expect(yield* sent("tools/list")).toBe(2)
      }).pipe(Effect.provide(memory))
  )

  it.scoped("a list that times out is served from the cache flagged offline; tool calls are not refused for it", () =>
    Effect.gen(function*() {
      let hang = false
      const context = yield* Layer.build(TestServer.layer({
        era: "modern",
        handlers: {
          "tools/list": () =>
            hang ? Effect.never : Effect.succeed(complete({ cacheScope: "public" }, { tools: [tool("a")] })),
          "tools/call": () => Effect.succeed({ resultType: "complete", content: [] })
        }
      }))
      const client = yield* McpClient.make({ clientInfo, prefetch: false, server: "srv", requestTimeout: "1 second" })
        .pipe(Effect.provide(Layer.merge(Layer.succeedContext(context), ResponseCache.layer())))
      yield* client.listTools
      hang = true
      const fiber = yield* Effect.fork(ResponseCache.cached(client.listTools))
      yield* until(Effect.map(receivedCount(context, "tools/list"), (n) => n === 2))
      yield* TestClock.adjust("1 second")
      const served = yield* Fiber.join(fiber)
      expect(served).toMatchObject({ fromCache: true, stale: true, offline: true })
      expect(yield* client.callTool({ name: "a" })).toMatchObject({ content: [] })
    }).pipe(Effect.provide(memory)))

  it.scoped("a client without a cache in its context is unchanged: callTool waits for the reconnect", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(TestServer.layer({
        era: "modern",
        handlers: { "tools/call": () => Effect.succeed({ resultType: "complete", content: [] }) },
        reconnect: { schedule: Schedule.spaced("10 seconds") }
      }))
      const client = yield* McpClient.make({ clientInfo, prefetch: false, server: "srv" }).pipe(
        Effect.provide(context)
      )
      yield* client.initialized
      yield* Context.get(context, TestServer.TestServer).dropConnection
      yield* eventually(Effect.map(client.state.get, (s) => s._tag === "Reconnecting"))
      const call = yield* Effect.fork(client.callTool({ name: "a" }))
      yield* TestClock.adjust("10 seconds")
      expect(yield* call.await).toMatchObject({ _tag: "Success" })
    }))
})
