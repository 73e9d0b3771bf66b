import { FetchHttpClient, HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpError } from "@mcp-effect/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import { startFaultServer } from "./fixtures/faultServer.js"
import {
  awaitSleepUntil,
  connections,
  failureOf,
  peer,
  realSleep,
  resource,
  resultOf,
  waitFor
} from "./fixtures/harness.js"

const isResponseTo = (id: JsonRpc.RequestId) => (m: JsonRpc.Incoming) =>
  !JsonRpc.isMalformed(m) && JsonRpc.isResponse(m) && m.id === id

/**
 * The fetch client with each response behind a proxy that counts reads of `stream` and, with
 * `hide`, hides where the platform keeps the body (as a custom `HttpClientResponse` would).
 */
const watchedResponses = (hide: boolean, streamed: { count: number }) =>
  Effect.map(
    HttpClient.HttpClient,
    (client) =>
      HttpClient.transformResponse(
        client,
        Effect.map((response) =>
          new Proxy(response, {
            get: (target, key) => {
              if (key === "stream") streamed.count++
              if (hide && (key === "original" || key === "source")) return undefined
              return Reflect.get(target, key, target)
            }
          })
        )
      )
  ).pipe(Effect.provide(FetchHttpClient.layer))

const fast = Schedule.spaced("10 millis").pipe(Schedule.intersect(Schedule.recurs(5)))

describe("HttpTransport against the fault server", () => {
  it.scopedLive("a dropped POST stream is resumed; the result arrives once and the tool ran once", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, sseReconnect: fast })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.dropCallStreams = 1
      const call = resultOf(yield* client.request("tools/call", { name: "count", arguments: {} }))
      expect(call.content[0].text).toBe("execution 1")
      expect(server.toolExecutions()).toBe(1)
      expect(client.received.filter(isResponseTo(2))).toHaveLength(1)
      const resumes = server.requests.filter((r) => r.method === "GET" && r.headers["last-event-id"])
      expect(resumes).toHaveLength(1)
      expect(resumes[0]!.headers["mcp-session-id"]).toBe("s1")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("keeps the Last-Event-ID when a resumed stream drops before delivering anything", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, sseReconnect: fast })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.dropCallStreams = 1
      server.faults.dropResumes = 2
      const call = resultOf(yield* client.request("tools/call", { name: "count", arguments: {} }))
      expect(call.content[0].text).toBe("execution 1")
      const ids = server.requests.filter((r) => r.method === "GET" && r.headers["last-event-id"]).map((r) =>
        r.headers["last-event-id"]
      )
      expect(ids).toHaveLength(3)
      expect(new Set(ids).size).toBe(1)
      expect(ids[0]).toMatch(/_0$/) // the priming event
      expect(client.received.filter(isResponseTo(2))).toHaveLength(1)
      expect(server.toolExecutions()).toBe(1)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("honours retry: before resuming (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true, retryMillis: 5000 }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.dropCallStreams = 1
      const call = yield* Effect.fork(client.request("tools/call", { name: "count", arguments: {} }))
      yield* awaitSleepUntil(5000)
      const resumed = () => server.requests.some((r) => r.method === "GET" && r.headers["last-event-id"])
      yield* TestClock.adjust("4999 millis")
      yield* realSleep(50)
      expect(resumed()).toBe(false)
      yield* TestClock.adjust("1 millis")
      yield* waitFor("the resuming GET", resumed)
      expect(resultOf(yield* Fiber.join(call)).content[0].text).toBe("execution 1")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("a GET stream flapping 5xx is reopened on the sseReconnect schedule (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      server.faults.failGets = 3
      const schedule = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(5)))
      const next = yield* connections({ url: server.url, sseReconnect: schedule })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const gets = () => server.requests.filter((r) => r.method === "GET").length
      yield* waitFor("the first GET", () => gets() === 1)
      let now = 0
      for (const delay of [100, 200, 400]) {
        yield* awaitSleepUntil(now + delay)
        const before = gets()
        yield* TestClock.adjust(delay - 1)
        yield* realSleep(20)
        expect(gets()).toBe(before)
        yield* TestClock.adjust(1)
        now += delay
        yield* waitFor("the next GET", () => gets() === before + 1)
      }
      expect(gets()).toBe(4)
      yield* waitFor("a pushed notification", () => server.push("notifications/tools/list_changed") === 1)
      yield* waitFor(
        "the notification",
        () =>
          client.received.some((m) =>
            !JsonRpc.isMalformed(m) && "method" in m && m.method === "notifications/tools/list_changed"
          )
      )
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("initialize answered 5xx: each new connection waits for the reconnect schedule (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      server.faults.failPosts = 3
      const schedule = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(5)))
      const next = yield* connections({ url: server.url, reconnect: { schedule } })
      const posts = () => server.requests.filter((r) => r.body?.method === "initialize").length
      let now = 0
      for (const delay of [0, 100, 200, 400]) {
        const pulled = yield* Effect.fork(next)
        if (delay > 0) {
          yield* awaitSleepUntil(now + delay)
          yield* TestClock.adjust(delay - 1)
          yield* realSleep(20)
          expect(Option.isNone(yield* Fiber.poll(pulled))).toBe(true)
          yield* TestClock.adjust(1)
          now += delay
        }
        const client = yield* peer(yield* Fiber.join(pulled))
        const before = posts()
        const result = yield* Effect.either(client.initialize)
        expect(posts()).toBe(before + 1)
        if (delay < 400) {
          expect(Either.isLeft(result) && (result.left as McpError.TransportError).status).toBe(503)
          expect(failureOf(yield* Deferred.await(client.ended))?._tag).toBe("TransportError")
        } else {
          expect(resultOf(Either.getOrThrow(result)).serverInfo.name).toBe("fault-server")
        }
      }
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a dropped GET stream is resumed with its Last-Event-ID and misses nothing", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      const next = yield* connections({ url: server.url, sseReconnect: fast })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET stream", () => server.push("notifications/one") === 1)
      const got = (method: string) => () =>
        client.received.filter((m) => !JsonRpc.isMalformed(m) && "method" in m && m.method === method).length === 1
      yield* waitFor("the first notification", got("notifications/one"))
      server.dropGets()
      server.push("notifications/two") // sent while the stream is down: replayed on resume
      yield* waitFor("the replayed notification", got("notifications/two"))
      const resume = server.requests.filter((r) => r.method === "GET").at(-1)!
      expect(resume.headers["last-event-id"]).toMatch(/_1$/)
      yield* realSleep(50)
      expect(got("notifications/one")()).toBe(true)
      expect(got("notifications/two")()).toBe(true)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a GET stream whose session expired ends the connection with SessionExpired", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      const next = yield* connections({ url: server.url, sseReconnect: fast })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET stream", () => server.push("notifications/one") === 1)
      server.dropGets()
      server.expire()
      expect(failureOf(yield* Deferred.await(client.ended))?._tag).toBe("SessionExpired")
      const last = server.requests.at(-1)!
      expect(last.method).toBe("GET")
      expect(last.headers["last-event-id"]).toBeDefined()
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("stops reopening a GET stream the server keeps closing at once, and stays usable", () => {
    const warnings: Array<string> = []
    const captureWarnings = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message))
      })
    )
    return Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      server.faults.closeGets = 1000
      const next = yield* connections({ url: server.url, sseReconnect: fast })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("six GETs", () => server.requests.filter((r) => r.method === "GET").length === 6)
      yield* realSleep(200)
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(6)
      expect(resultOf(yield* client.request("ping"))).toEqual({})
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
      expect(warnings).toEqual(["mcp http: the server keeps closing the GET stream at once; not reopening it"])
    }).pipe(Effect.provide(Layer.merge(FetchHttpClient.layer, captureWarnings)))
  })

  it.scopedLive("a GET stream that keeps failing ends the connection instead of going silently dead", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      server.faults.failGets = 1000
      const next = yield* connections({ url: server.url, sseReconnect: fast })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const error = failureOf(yield* Deferred.await(client.ended))
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect((error as McpError.TransportError).reason).toBe("Exhausted")
      expect((error as McpError.TransportError).phase).toBe("get-stream")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("404 on a request with a session id ends the connection with SessionExpired; the next has no stale id", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, reconnect: { schedule: fast } })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.expire()
      const failed = yield* Effect.flip(client.request("tools/list"))
      expect(failed).toBeInstanceOf(McpError.SessionExpired)
      expect(failureTag(yield* Deferred.await(client.ended))).toBe("SessionExpired")
      const deletes = server.requests.filter((r) => r.method === "DELETE").length
      const second = yield* peer(yield* next)
      expect(server.requests.filter((r) => r.method === "DELETE").length).toBe(deletes) // no DELETE of a dead session
      yield* second.initialize
      const init = server.requests.filter((r) => r.body?.method === "initialize")
      expect(init).toHaveLength(2)
      expect(init[1]!.headers["mcp-session-id"]).toBeUndefined()
      const after = server.requests.filter((r) => r.body?.method === "notifications/initialized").at(-1)!
      expect(after.headers["mcp-session-id"]).toBe("s2")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  for (const [name, client] of [["fetch", FetchHttpClient.layer], ["undici", NodeHttpClient.layerUndici]] as const) {
    it.scopedLive(`${name}: an SSE answer is read to its end, not aborted once answered (the socket stays reusable)`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer({ get405: true }))
        server.faults.lingerAfterAnswer = 100
        const next = yield* connections({ url: server.url })
        const client = yield* peer(yield* next)
        yield* client.initialize
        for (let i = 0; i < 3; i++) {
          expect(resultOf(yield* client.request("tools/call", { name: "count" }))).toBeDefined()
        }
        yield* waitFor("the four answer streams to end", () => server.lingered().ended + server.lingered().cut === 4)
        expect(server.lingered()).toEqual({ ended: 4, cut: 0 })
        // (an answer stream the client gave up on takes its TCP connection with it)
        expect(server.closedByClients()).toBe(0)
      }).pipe(Effect.provide(client)))
  }

  it.scoped("the total budget ends with the last answer: a stream lingering past it does not end the connection (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      // the answer streams stay open until the server closes (the end of the test)
      server.faults.lingerAfterAnswer = 10 * 60_000
      const next = yield* connections({ url: server.url, timeouts: { totalMillis: 1000 } })
      const client = yield* peer(yield* next)
      yield* client.initialize
      expect(resultOf(yield* client.request("tools/call", { name: "count" }))).toBeDefined()
      // both budgets run out while their answered streams are still being read
      yield* TestClock.adjust("2 seconds")
      server.faults.lingerAfterAnswer = 0
      expect(resultOf(yield* client.request("ping"))).toEqual({})
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("notifications answered 200 with a body are accepted", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true, notificationStatus: 200 }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* client.send("notifications/roots/list_changed")
      expect(resultOf(yield* client.request("ping"))).toEqual({})
      expect(client.received.filter(JsonRpc.isMalformed)).toEqual([])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  // bodies are read where the response keeps them, or through `response.stream` when it hides them
  for (
    const [responseMode, body] of [["sse", "native"], ["json", "native"], ["sse", "stream"], [
      "json",
      "stream"
    ]] as const
  ) {
    it.scopedLive(`${responseMode}, ${body} body: malformed and oversized answers arrive as typed Malformed for their request`, () => {
      const streamed = { count: 0 }
      return Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer({ get405: true, responseMode }))
        const next = yield* connections({ url: server.url, maxMessageBytes: 64 * 1024 })
        const client = yield* peer(yield* next)
        yield* client.initialize
        server.faults.malformedFor = "tools/list"
        const bad = yield* client.request("tools/list")
        expect(JsonRpc.isMalformed(bad) && bad.error.reason).toBe("Json")
        server.faults.malformedFor = undefined
        server.faults.oversizedFor = "tools/list"
        server.faults.oversizedBytes = 200 * 1024
        const big = yield* client.request("tools/list")
        expect(JsonRpc.isMalformed(big) && big.error.reason).toBe("TooLarge")
        server.faults.oversizedFor = undefined
        expect(resultOf(yield* client.request("ping"))).toEqual({})
        if (body === "native") expect(streamed.count).toBe(0)
        else expect(streamed.count).toBeGreaterThan(0)
      }).pipe(Effect.provideServiceEffect(HttpClient.HttpClient, watchedResponses(body === "stream", streamed)))
    })
  }

  it.scopedLive("an oversized event on the GET stream ends the connection: a waiting request fails at once", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer())
      const next = yield* connections({ url: server.url, maxMessageBytes: 64 * 1024 })
      const client = yield* peer(yield* next)
      yield* client.initialize
      yield* waitFor("the GET stream", () => server.push("notifications/one") === 1)
      server.faults.stallMethod = "tools/list" // its answer would have come on the GET stream
      const call = yield* Effect.fork(Effect.flip(client.request("tools/list")))
      yield* waitFor("the stalled POST", () => server.requests.some((r) => r.body?.method === "tools/list"))
      server.pushRaw(`event: message\ndata: ${"x".repeat(100 * 1024)}\n\n`)
      const error = yield* Fiber.join(call)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error).toMatchObject({ reason: "Read", phase: "get-stream" })
      expect(failureOf(yield* Deferred.await(client.ended))).toBe(error)
      expect(client.received.some((m) => JsonRpc.isMalformed(m) && m.error.reason === "TooLarge")).toBe(true)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("DELETE answered 405 is fine; DELETE carries the session id", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true, deleteStatus: 405 }))
      const next = yield* connections({ url: server.url })
      const client = yield* peer(yield* next)
      yield* client.initialize
      const second = yield* Effect.fork(next) // pulling the next connection closes the first
      yield* waitFor("the DELETE", () => server.requests.some((r) => r.method === "DELETE"))
      expect(server.requests.find((r) => r.method === "DELETE")!.headers["mcp-session-id"]).toBe("s1")
      yield* Fiber.interrupt(second)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("falls back to HTTP+SSE when initialize gets 405, and stays there for the next connection", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ legacy: true }))
      const next = yield* connections({ url: server.url, reconnect: { schedule: fast } })
      const client = yield* peer(yield* next)
      const init = resultOf(yield* client.initialize)
      expect(init.serverInfo.name).toBe("fault-server")
      expect(resultOf(yield* client.request("tools/list")).tools[0].name).toBe("count")
      const second = yield* peer(yield* next)
      yield* second.initialize
      const initPosts = server.requests.filter((r) => r.body?.method === "initialize").map((r) => r.path)
      expect(initPosts).toEqual(["/mcp", "/legacy/messages", "/legacy/messages"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  // on the TestClock: under load, a real 200 ms budget could run out on initialize already
  it.scoped("a stalled request fails with a typed total timeout", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, timeouts: { totalMillis: 200 } })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.stallMethod = "tools/list"
      const request = yield* Effect.fork(Effect.flip(client.request("tools/list")))
      yield* waitFor("the stalled POST", () => server.requests.some((r) => r.body?.method === "tools/list"))
      yield* awaitSleepUntil(200)
      yield* TestClock.adjust("199 millis")
      yield* realSleep(20)
      expect(Option.isNone(yield* Fiber.poll(request))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(request)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect((error as McpError.TransportError).phase).toBe("total")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  // a request's answer is read on its send's fiber, which releases the body when it ends, however it ends
  for (const [name, layer] of [["fetch", FetchHttpClient.layer], ["undici", NodeHttpClient.layerUndici]] as const) {
    it.scopedLive(`${name}: closing the connection while a request's answer stream is read closes that stream`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer({ get405: true }))
        const next = yield* connections({ url: server.url })
        const client = yield* peer(yield* next)
        yield* client.initialize
        server.faults.stallBodyMethod = "tools/list"
        yield* Effect.fork(client.request("tools/list"))
        yield* waitFor("the stalled answer stream", () => server.stalledBodies().open === 1)
        expect(server.stalledBodies().closed).toBe(0)
        // pulling the next connection closes this one
        yield* next
        yield* waitFor("the client to close the stalled stream", () => server.stalledBodies().closed === 1)
      }).pipe(Effect.provide(layer)))
  }

  // what is left of the total budget once the headers are in is counted from the POST, on the connection's clock
  it.scoped("a request whose answer stream stalls after its headers fails when the total budget runs out (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, timeouts: { totalMillis: 1000 } })
      const client = yield* peer(yield* next)
      yield* client.initialize
      // the clock is far from zero: a budget counted from 0 would be spent already
      yield* TestClock.adjust("5 seconds")
      server.faults.stallBodyMethod = "tools/list"
      const request = yield* Effect.fork(Effect.flip(client.request("tools/list")))
      yield* waitFor("the stalled answer stream", () => server.requests.some((r) => r.body?.method === "tools/list"))
      yield* awaitSleepUntil(5_000 + 1_000)
      yield* TestClock.adjust("999 millis")
      yield* realSleep(20)
      expect(Option.isNone(yield* Fiber.poll(request))).toBe(true)
      expect(yield* Deferred.isDone(client.ended)).toBe(false)
      yield* TestClock.adjust("1 millis")
      // the request was accepted: running out of budget while its answer is read ends the connection
      expect(failureOf(yield* Deferred.await(client.ended))).toMatchObject({ _tag: "TransportError", phase: "total" })
      expect(yield* Fiber.join(request)).toMatchObject({ _tag: "TransportError", phase: "total" })
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("a stalled notification POST fails with a typed connect timeout", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, timeouts: { connectMillis: 100 } })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.stallMethod = "notifications/roots/list_changed"
      const send = yield* Effect.fork(Effect.flip(client.send("notifications/roots/list_changed")))
      yield* waitFor(
        "the stalled POST",
        () => server.requests.some((r) => r.body?.method === "notifications/roots/list_changed")
      )
      yield* TestClock.adjust("100 millis")
      const error = yield* Fiber.join(send)
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect((error as McpError.TransportError).phase).toBe("connect")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

const failureTag = (exit: Parameters<typeof failureOf>[0]) => failureOf(exit)?._tag
