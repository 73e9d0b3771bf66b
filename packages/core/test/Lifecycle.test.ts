import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import * as ClientSession from "../src/ClientSession.js"
import * as InMemoryTransport from "../src/InMemoryTransport.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import { McpTransport } from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, clientLayer, reconnect, reconnecting } from "./utils.js"

/** A short, comparable view of a state. */
const summary = (state: ClientSession.ConnectionState) => {
  switch (state._tag) {
    case "Reconnecting":
      return `Reconnecting ${state.generation} attempt ${state.attempt}` +
        (state.nextDelay ? ` in ${Duration.toMillis(state.nextDelay)} ms` : "")
    case "Ready":
      return `Ready ${state.initialized.generation}`
    case "Connecting":
      return `Connecting ${state.generation}`
    case "Closed":
      return "Closed"
  }
}

/** An initialized client in a scope of its own, which the test closes. */
const initializedClient = Effect.gen(function*() {
  const scope = yield* Scope.make()
  const context = yield* Layer.buildWithScope(clientLayer({}), scope)
  const client = Context.get(context, McpClient.McpClient)
  yield* client.initialized
  return { client, scope }
})

describe("the first connection", () => {
  it.effect("a server that never gets initialized is reported within the first-connect budget, with the cause", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryTransport.make()
      // the server goes away before it answers anything, every time
      yield* memory.accept.pipe(Effect.flatMap((end) => end.close), Effect.forever, Effect.forkScoped)
      const session = yield* ClientSession.make({ clientInfo }).pipe(
        Effect.provideService(McpTransport, memory.transport)
      )
      const states = yield* Effect.fork(Stream.runCollect(session.state.changes))
      yield* TestClock.adjust("700 millis")
      const error = yield* session.closed
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Exhausted" })
      expect(error.message).toContain("gave up after 4 connection attempts")
      expect(error.message).toContain("last failure")
      expect((error as { cause?: unknown }).cause).toMatchObject({ _tag: "TransportError" })
      // the state stream ends with Closed and showed each retry
      const seen = [...(yield* Fiber.join(states))].map(summary)
      expect(seen.filter((s) => s.includes(" in "))).toEqual([
        "Reconnecting 2 attempt 1 in 100 ms",
        "Reconnecting 3 attempt 2 in 200 ms",
        "Reconnecting 4 attempt 3 in 400 ms"
      ])
      expect(seen.at(-1)).toBe("Closed")
    }).pipe(Effect.scoped))

  it.effect("a server that never answers the handshake is Closed with a true timeout within the 30 s budget", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryTransport.make()
      const methods: Array<string> = []
      // the server reads everything and answers nothing, on every connection
      yield* memory.accept.pipe(
        Effect.flatMap((end) =>
          Effect.forkScoped(
            Stream.runForEach(end.incoming, (m) => Effect.sync(() => "method" in m && methods.push(m.method)))
          )
        ),
        Effect.forever,
        Effect.forkScoped
      )
      const session = yield* ClientSession.make({ clientInfo }).pipe(
        Effect.provideService(McpTransport, memory.transport)
      )
      yield* TestClock.adjust("29999 millis")
      expect(summary(yield* session.state.get)).toBe("Connecting 1")
      // the probe had its share of the budget, then `initialize` was tried on the same connection
      expect(methods).toEqual(["server/discover", "notifications/cancelled", "initialize"])
      yield* TestClock.adjust("1 millis")
      const error = yield* session.closed
      expect(error).toEqual(new McpError.RequestTimeout({ method: "initialize", kind: "total", millis: 30000 }))
      expect(summary(yield* session.state.get)).toBe("Closed")
    }).pipe(Effect.scoped))

  it.effect("the budget is the initializeTimeout option", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryTransport.make()
      yield* memory.accept.pipe(
        Effect.flatMap((end) => Effect.forkScoped(Stream.runDrain(end.incoming))),
        Effect.forever,
        Effect.forkScoped
      )
      const session = yield* ClientSession.make({ clientInfo, initializeTimeout: "3 seconds", era: "legacy" }).pipe(
        Effect.provideService(McpTransport, memory.transport)
      )
      yield* TestClock.adjust("3 seconds")
      expect(yield* session.closed).toEqual(
        new McpError.RequestTimeout({ method: "initialize", kind: "total", millis: 3000 })
      )
    }).pipe(Effect.scoped))
})

describe("state while reconnecting", () => {
  it.effect("carries the attempt, the last failure and the next delay", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.dropConnection
      const state = yield* reconnecting
      expect(state).toMatchObject({
        generation: 2,
        attempt: 1,
        reason: "the server closed the connection",
        lastFailure: { _tag: "TransportError", reason: "Closed" }
      })
      expect(state.nextDelay && Duration.toMillis(state.nextDelay)).toBe(4000)
      yield* TestClock.adjust("4 seconds")
      expect((yield* client.initialized).generation).toBe(2)
    }).pipe(Effect.provide(clientLayer({ reconnect: { schedule: Schedule.spaced("4 seconds") } }))))
})

/** Runs every public stream of a client to its end. */
const drainAll = (client: McpClient.Service) =>
  Effect.all([
    Stream.runDrain(client.notifications),
    Stream.runDrain(client.logMessages),
    Stream.runDrain(client.resourceUpdates),
    Stream.runDrain(client.session.malformed),
    Stream.runDrain(client.state.changes),
    Stream.runDrain(client.tools.changes),
    Stream.runDrain(client.resources.changes),
    Stream.runDrain(client.prompts.changes)
  ], { concurrency: "unbounded", discard: true })

describe("streams end with the session", () => {
  it.effect("when the session fails for good", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.fork(drainAll(client))
      expect((yield* Effect.flip(client.initialized))._tag).toBe("ProtocolError")
      yield* Fiber.join(fiber)
      // and a stream run after the end is empty
      yield* drainAll(client)
    }).pipe(Effect.provide(clientLayer({ protocolVersion: "1999-01-01" }))))

  it.effect("when the client's scope closes", () =>
    Effect.gen(function*() {
      const { client, scope } = yield* initializedClient
      const fiber = yield* Effect.fork(drainAll(client))
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      yield* Fiber.join(fiber)
    }))
})

describe("scoped subscriptions", () => {
  it.effect("see what is sent right after they return, with no wait for the subscriber", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const logs = yield* client.subscribeLogMessages
      const updates = yield* client.subscribeResourceUpdates
      const all = yield* client.subscribeNotifications
      yield* test.notify("notifications/message", { level: "info", data: "hello" })
      yield* test.notify("notifications/resources/updated", { uri: "file:///x" })
      expect([...(yield* Stream.runCollect(Stream.take(logs, 1)))]).toEqual([{ level: "info", data: "hello" }])
      expect([...(yield* Stream.runCollect(Stream.take(updates, 1)))]).toEqual([{ uri: "file:///x" }])
      expect([...(yield* Stream.runCollect(Stream.take(all, 2)))].map((n) => n.method)).toEqual([
        "notifications/message",
        "notifications/resources/updated"
      ])
    }).pipe(Effect.scoped, Effect.provide(clientLayer({}))))
})

describe("an idle session", () => {
  /** A client over a `TestServer` built outside the supervised region, so only the client's fibers are counted. */
  const supervisedClient = Effect.gen(function*() {
    const server = yield* Layer.build(TestServer.layer({ reconnect: { schedule: Schedule.spaced("1 second") } }))
    const supervisor = yield* Supervisor.track
    const client = yield* McpClient.make({ clientInfo, prefetch: false }).pipe(
      Effect.supervised(supervisor),
      Effect.provide(server)
    )
    return { client, test: Context.get(server, TestServer.TestServer), fibers: supervisor.value }
  })

  it.scoped("keeps no fiber: the session listens to the connection's inbound buffer (the worker runs only while there is work)", () =>
    Effect.gen(function*() {
      const { client, fibers, test } = yield* supervisedClient
      yield* client.initialized
      // past the handshake's deadline: no request is in flight
      yield* TestClock.adjust("1 minute")
      expect(yield* fibers).toEqual([])
      // the fiber that runs a lost connection's end runs the next one up to its hand-over, then ends
      yield* test.dropConnection
      yield* TestClock.adjust("1 second")
      expect((yield* client.initialized).generation).toBe(2)
      yield* TestClock.adjust("1 minute")
      expect(yield* fibers).toEqual([])
      yield* client.ping
    }))

  it.effect("closing it stops every fiber of the session, also a reader that went on to wait for the next connection", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { client, fibers, test } = yield* Scope.extend(supervisedClient, scope)
      yield* client.initialized
      yield* test.dropConnection
      // the lost connection's reader goes on with the next connection: it waits out the retry delay
      for (let i = 0; i < 1000 && (yield* client.state.get)._tag !== "Reconnecting"; i++) yield* Effect.yieldNow()
      expect((yield* client.state.get)._tag).toBe("Reconnecting")
      expect((yield* fibers).length).toBeGreaterThan(0)
      yield* Scope.close(scope, Exit.void)
      expect(yield* fibers).toEqual([])
      expect(summary(yield* client.state.get)).toBe("Closed")
    }))

  it.effect("state and list views first followed late (after a reconnect) start with what they hold now", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.listTools
      yield* reconnect
      const state = yield* Stream.runHead(client.state.changes)
      expect(state.pipe(Option.map(summary), Option.getOrUndefined)).toBe("Ready 2")
      expect((yield* client.tools.get).map((tool) => tool.name)).toEqual(["v1"])
      const tools = yield* Effect.fork(Stream.runCollect(Stream.take(client.tools.changes, 2)))
      yield* test.notify("notifications/tools/list_changed")
      const seen = [...(yield* Fiber.join(tools))].map((list) => list.map((tool) => tool.name))
      expect(seen).toEqual([["v1"], ["v2"]])
    }).pipe(Effect.provide(clientLayer((() => {
      let version = 0
      return {
        reconnect: { schedule: Schedule.spaced("1 second") },
        capabilities: { tools: { listChanged: true } },
        handlers: {
          "tools/list": () => Effect.succeed({ tools: [{ name: `v${++version}`, inputSchema: { type: "object" } }] })
        }
      }
    })()))))

  it.effect("the session's end reaches a waiter from before it and one from after it (the wait is made on first use)", () =>
    Effect.gen(function*() {
      const { client, scope } = yield* initializedClient
      const before = yield* Effect.fork(client.session.closed)
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      const after = yield* client.session.closed
      expect(after).toMatchObject({ _tag: "TransportError", reason: "Closed", message: "the session was closed" })
      expect(yield* Fiber.join(before)).toBe(after)
    }))

  it.effect("members first read after the close fail with the session's error, and their streams end at once", () =>
    Effect.gen(function*() {
      const { client, scope } = yield* initializedClient
      yield* Scope.close(scope, Exit.void)
      // none of these was read before the close: each is built now
      expect((yield* Effect.flip(client.ping))._tag).toBe("TransportError")
      expect((yield* Effect.flip(client.listResourceTemplates))._tag).toBe("TransportError")
      expect((yield* Effect.flip(client.listTasks))._tag).toBe("TransportError")
      expect([...(yield* Stream.runCollect(client.logMessages))]).toEqual([])
      expect([...(yield* Stream.runCollect(client.resourceUpdates))]).toEqual([])
      expect([...(yield* Stream.runCollect(client.session.malformed))]).toEqual([])
      // and read again, they are the same
      expect(client.ping).toBe(client.ping)
      expect(client.tools).toBe(client.tools)
    }))

  it.effect("state and list views first followed after the close end at once, showing the end", () =>
    Effect.gen(function*() {
      const { client, scope } = yield* initializedClient
      yield* Scope.close(scope, Exit.void)
      expect(summary(yield* client.state.get)).toBe("Closed")
      expect([...(yield* Stream.runCollect(client.state.changes))].map(summary)).toEqual(["Closed"])
      yield* Stream.runDrain(client.tools.changes)
      // a list fetched after the close fails with the session's error, not with an interruption
      expect((yield* Effect.flip(client.listTools))._tag).toBe("TransportError")
    }))
})
