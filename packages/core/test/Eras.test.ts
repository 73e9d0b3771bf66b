import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Elicitation from "../src/Elicitation.js"
import type * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpSchema from "../src/McpSchema.js"
import * as Roots from "../src/Roots.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, clientLayer, eventually, receivedWith, reconnect, textResult } from "./utils.js"

const MODERN = McpSchema.MODERN_PROTOCOL_VERSION

const methodsReceived = Effect.map(
  Effect.flatMap(TestServer.TestServer, (server) => server.received),
  (messages) => messages.flatMap((m) => "method" in m ? [m.method] : [])
)

const metaOf = (message: JsonRpc.Request | JsonRpc.Notification) =>
  (message.params?._meta ?? {}) as Record<string, unknown>

const tools = { "tools/list": () => Effect.succeed({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }) }

describe("choosing the era", () => {
  it.effect("a legacy server: the probe fails, initialize follows; later requests carry no modern _meta", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const init = yield* client.initialized
      expect(init.protocolVersion).toBe(McpSchema.LATEST_PROTOCOL_VERSION)
      expect(init.supportedVersions).toBeUndefined()
      yield* client.listTools
      yield* client.ping
      expect(yield* methodsReceived).toEqual([
        "server/discover",
        "initialize",
        "notifications/initialized",
        "tools/list",
        "ping"
      ])
      const [list] = yield* receivedWith("tools/list")
      expect(metaOf(list!)).toEqual({})
    }).pipe(Effect.provide(clientLayer({ handlers: tools }))))

  it.effect("a modern server: server/discover only, and every request carries version, client info and capabilities", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      // asked before the handshake is done: the request still goes out with the agreed version
      const listed = yield* Effect.fork(client.listTools)
      const init = yield* client.initialized
      expect(init).toMatchObject({
        protocolVersion: MODERN,
        serverInfo: { name: "test-server", version: "1.0.0" },
        supportedVersions: [MODERN],
        instructions: "modern"
      })
      expect((yield* Fiber.join(listed)).map((t) => t.name)).toEqual(["echo"])
      expect(yield* methodsReceived).toEqual(["server/discover", "tools/list"])
      const [list] = yield* receivedWith("tools/list")
      expect(metaOf(list!)).toEqual({
        [McpSchema.MetaKey.ProtocolVersion]: MODERN,
        [McpSchema.MetaKey.ClientInfo]: clientInfo,
        // the tasks extension is always declared: the session follows any task handle
        [McpSchema.MetaKey.ClientCapabilities]: {
          elicitation: { form: {} },
          extensions: { "io.modelcontextprotocol/tasks": {} }
        }
      })
    }).pipe(
      Effect.provide(clientLayer({ era: "modern", handlers: tools, instructions: "modern" })),
      Effect.provide(Elicitation.layerAcceptDefaults)
    ))

  it.effect("a server of both eras: the modern one, the newest both speak", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const init = yield* client.initialized
      expect(init.protocolVersion).toBe(MODERN)
      expect(init.supportedVersions).toEqual([MODERN, McpSchema.LATEST_PROTOCOL_VERSION])
      expect(yield* methodsReceived).toEqual(["server/discover"])
    }).pipe(Effect.provide(clientLayer({ era: "both" }))))

  it.effect("pinned to the legacy era: no probe, initialize only (also with a server of both eras)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.initialized).protocolVersion).toBe(McpSchema.LATEST_PROTOCOL_VERSION)
      expect(yield* methodsReceived).toEqual(["initialize", "notifications/initialized"])
    }).pipe(Effect.provide(clientLayer({ era: "both" }, { era: "legacy" }))))

  it.effect("a pinned legacy version is offered in initialize, with no probe", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.initialized).protocolVersion).toBe("2025-06-18")
      expect(yield* methodsReceived).toEqual(["initialize", "notifications/initialized"])
    }).pipe(Effect.provide(clientLayer({}, { protocolVersion: "2025-06-18" }))))

  it.effect("pinned to the modern era, a legacy server ends the session with a ProtocolError saying why", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.initialized)
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.MethodNotFound })
      expect(error.message).toContain("does not speak the modern era")
      expect(yield* methodsReceived).toEqual(["server/discover"])
    }).pipe(Effect.provide(clientLayer({}, { era: "modern" }))))

  it.effect("a modern-only server refusing initialize with -32022: a session pinned to legacy says what it supports", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.initialized)
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.UnsupportedProtocolVersion })
      expect(error.message).toContain(`the server supports ${MODERN}`)
    }).pipe(Effect.provide(clientLayer({ era: "modern" }, { era: "legacy" }))))

  it.effect("era and a pinned version of the other era: a typed options error, nothing sent", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect(yield* Effect.flip(client.initialized)).toMatchObject({ _tag: "TransportError", phase: "options" })
      expect(yield* methodsReceived).toEqual([])
    }).pipe(Effect.provide(clientLayer({}, { era: "modern", protocolVersion: "2025-06-18" }))))

  it.effect("after a reconnect the era the server spoke is tried first: no second probe of a legacy server", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.dropConnection
      yield* eventually(Effect.map(client.state.get, (s) => s._tag === "Reconnecting" && s.attempt > 0))
      yield* TestClock.adjust("1 second")
      expect((yield* client.initialized).generation).toBe(2)
      expect(yield* methodsReceived).toEqual([
        "server/discover",
        "initialize",
        "notifications/initialized",
        "initialize",
        "notifications/initialized"
      ])
    }).pipe(Effect.provide(clientLayer({ reconnect: { schedule: Schedule.spaced("1 second") } }))))
})

describe("the era probe's budget", () => {
  it.effect("a server answering server/discover with an error code in the id: initialize follows within the probe's budget, and the answer is logged", () => {
    const logged: Array<string> = []
    const collector = Logger.make(({ message }) => {
      logged.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    })
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      const [probe] = yield* eventually(Effect.map(receivedWith("server/discover"), (l) => l.length > 0 && l))
      expect(probe).toBeDefined()
      // as @effect/ai 0.37's server answers: the error code where the id belongs
      yield* test.sendRaw({ jsonrpc: "2.0", id: -32603, error: { code: -32603, message: "Internal error" } })
      const initialized = yield* Effect.fork(client.initialized)
      yield* TestClock.adjust("4999 millis")
      expect(initialized.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      // (polled, not joined: a probe still waiting would hold the test on the TestClock)
      yield* eventually(Effect.map(initialized.poll, (exit) => exit._tag === "Some"))
      expect((yield* Fiber.join(initialized)).protocolVersion).toBe(McpSchema.LATEST_PROTOCOL_VERSION)
      // the probe given up is cancelled like any request that timed out
      expect(yield* methodsReceived).toEqual([
        "server/discover",
        "notifications/cancelled",
        "initialize",
        "notifications/initialized"
      ])
      expect(logged).toContain("mcp: dropped an answer whose id matches no request in flight: -32603")
    }).pipe(
      Effect.provide(clientLayer({ handlers: { "server/discover": () => Effect.never } })),
      Effect.provide(Logger.replace(Logger.defaultLogger, collector)),
      Logger.withMinimumLogLevel(LogLevel.Debug)
    )
  })
})

describe("McpClient in the modern era", () => {
  it.effect("setLoggingLevel sends no request: every later request carries the level in its _meta", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.setLoggingLevel("warning")
      yield* client.listTools
      expect(yield* methodsReceived).toEqual(["server/discover", "tools/list"])
      const [list] = yield* receivedWith("tools/list")
      expect(metaOf(list!)[McpSchema.MetaKey.LogLevel]).toBe("warning")
    }).pipe(Effect.provide(clientLayer({ era: "modern", handlers: tools, capabilities: { logging: {}, tools: {} } }))))

  it.effect("the level chosen by setLoggingLevel rides on the requests of the next connection too", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.setLoggingLevel("debug")
      yield* reconnect
      yield* client.listTools
      const lists = yield* receivedWith("tools/list")
      expect(lists.map((list) => metaOf(list)[McpSchema.MetaKey.LogLevel])).toEqual(["debug"])
      expect(yield* methodsReceived).not.toContain("logging/setLevel")
    }).pipe(Effect.provide(clientLayer({
      era: "modern",
      handlers: tools,
      capabilities: { logging: {}, tools: {} },
      reconnect: { schedule: Schedule.spaced("1 second") }
    }))))

  it.effect("setLoggingLevel needs the server's logging capability in the modern era too", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.setLoggingLevel("info"))
      expect(error).toMatchObject({ _tag: "UnsupportedCapability", capability: "logging", method: "logging/setLevel" })
    }).pipe(Effect.provide(clientLayer({ era: "modern" }))))

  it.effect("ping is server/discover with the modern _meta: a liveness check the modern server answers", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      yield* client.ping
      expect(yield* methodsReceived).toEqual(["server/discover", "server/discover"])
      const [, ping] = yield* receivedWith("server/discover")
      expect(metaOf(ping!)[McpSchema.MetaKey.ProtocolVersion]).toBe(MODERN)
    }).pipe(Effect.provide(clientLayer({ era: "modern" }))))

  it.effect("server/discover sent after the handshake carries the modern _meta (the server refuses it without)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const result = yield* client.session.request("server/discover", {})
      expect(result).toMatchObject({ supportedVersions: [MODERN] })
    }).pipe(Effect.provide(clientLayer({ era: "modern" }))))

  it.effect("methods the era removed fail at once with UnsupportedCapability naming the version", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const list = yield* Effect.flip(client.listTasks)
      expect(list).toMatchObject({ _tag: "UnsupportedCapability", method: "tasks/list", protocolVersion: MODERN })
      expect(list.message).toBe(`tasks/list does not exist in protocol ${MODERN}, which the server speaks`)
      expect(yield* methodsReceived).toEqual(["server/discover"])
    }).pipe(Effect.provide(clientLayer({ era: "modern", capabilities: { logging: {} } }))))

  it.effect("input_required: answered with the Elicitation layer, retried on a new id with requestState echoed", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "deploy", arguments: { env: "prod" } })
      expect(result).toMatchObject(textResult("deployed"))
      const calls = yield* receivedWith("tools/call")
      expect(calls.length).toBe(2)
      const [first, retry] = calls as ReadonlyArray<JsonRpc.Request>
      expect(retry!.id).not.toEqual(first!.id)
      expect(retry!.params).toMatchObject({
        name: "deploy",
        arguments: { env: "prod" },
        inputResponses: { confirm: { action: "accept", content: { sure: true } } },
        requestState: "opaque-☃-state"
      })
      expect(metaOf(retry!)[McpSchema.MetaKey.ProtocolVersion]).toBe(MODERN)
      expect("inputResponses" in first!.params!).toBe(false)
    }).pipe(
      Effect.provide(clientLayer({
        era: "modern",
        handlers: {
          ...tools,
          "tools/call": ({ params }) =>
            Effect.succeed(
              params.inputResponses === undefined ?
                {
                  resultType: "input_required",
                  inputRequests: {
                    confirm: {
                      method: "elicitation/create",
                      params: {
                        message: "deploy to prod?",
                        requestedSchema: { type: "object", properties: { sure: { type: "boolean", default: true } } }
                      }
                    }
                  },
                  requestState: "opaque-☃-state"
                } :
                { resultType: "complete", ...textResult("deployed") }
            )
        }
      })),
      Effect.provide(Elicitation.layerAcceptDefaults)
    ))

  it.effect("subscribe goes through subscriptions/listen; updates reach resourceUpdates; unsubscribe re-listens", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const updates = yield* client.subscribeResourceUpdates
      yield* client.subscribe("file:///a")
      const [listen] = yield* receivedWith("subscriptions/listen")
      expect(listen!.params).toMatchObject({ notifications: { resourceSubscriptions: ["file:///a"] } })
      expect(metaOf(listen!)[McpSchema.MetaKey.ProtocolVersion]).toBe(MODERN)
      const first = yield* Effect.fork(Stream.runHead(updates))
      yield* test.notify("notifications/resources/updated", {
        _meta: { [McpSchema.MetaKey.SubscriptionId]: (listen as JsonRpc.Request).id },
        uri: "file:///a"
      })
      expect(yield* Fiber.join(first)).toMatchObject({ _tag: "Some", value: { uri: "file:///a" } })
      yield* client.unsubscribe("file:///a")
      // the old listen is cancelled; with nothing left to listen to, no new one is opened
      const cancelled = yield* receivedWith("notifications/cancelled")
      expect(cancelled.map((n) => n.params?.requestId)).toEqual([(listen as JsonRpc.Request).id])
      expect((yield* receivedWith("subscriptions/listen")).length).toBe(1)
      expect(yield* receivedWith("resources/subscribe")).toEqual([])
    }).pipe(
      Effect.scoped,
      Effect.provide(clientLayer({ era: "modern", capabilities: { resources: { subscribe: true } } }))
    ))

  it.effect("list_changed views: the listen request opts in to what the server offers, and a change refreshes", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const listen = yield* eventually(Effect.map(receivedWith("subscriptions/listen"), (l) => l[0]))
      expect(listen.params).toMatchObject({ notifications: { toolsListChanged: true } })
      yield* eventually(Effect.map(client.tools.get, (t) => t.length === 1))
      yield* test.notify("notifications/tools/list_changed", {
        _meta: { [McpSchema.MetaKey.SubscriptionId]: (listen as JsonRpc.Request).id }
      })
      yield* eventually(Effect.map(receivedWith("tools/list"), (l) => l.length === 2))
    }).pipe(Effect.provide(clientLayer(
      { era: "modern", capabilities: { tools: { listChanged: true } }, handlers: tools },
      { prefetch: true }
    ))))

  it.effect("a server without subscriptions/listen fails subscribe with its error, and the URI is not kept", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const error = yield* Effect.flip(client.subscribe("file:///a"))
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.MethodNotFound })
      yield* Effect.flip(client.subscribe("file:///b"))
      const listens = yield* receivedWith("subscriptions/listen")
      expect(listens.map((l) => l.params?.notifications)).toEqual([
        { resourceSubscriptions: ["file:///a"] },
        { resourceSubscriptions: ["file:///b"] }
      ])
    }).pipe(Effect.provide(
      McpClient.layer({ clientInfo, prefetch: false }).pipe(
        Layer.provideMerge(TestServer.layer({
          era: "modern",
          capabilities: { resources: { subscribe: true } },
          handlers: {
            "subscriptions/listen": () =>
              Effect.fail(new McpError.ProtocolError({ code: McpError.ErrorCode.MethodNotFound, message: "no" }))
          }
        }))
      )
    )))

  it.effect("resource not found: -32602 from a modern server and -32002 from a legacy one are both recognised", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const exit = yield* Effect.exit(client.readResource("file:///missing"))
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(client.readResource("file:///missing"))
      expect(McpError.isResourceNotFound(error)).toBe(true)
      expect(McpError.isResourceNotFound(new McpError.ProtocolError({ code: -32002, message: "gone" }))).toBe(true)
      expect(
        McpError.isResourceNotFound(new McpError.ProtocolError({ code: -32602, message: "bad", method: "tools/call" }))
      )
        .toBe(false)
    }).pipe(Effect.provide(clientLayer({
      era: "modern",
      capabilities: { resources: {} },
      handlers: {
        "resources/read": () =>
          Effect.fail(
            new McpError.ProtocolError({ code: McpError.ErrorCode.InvalidParams, message: "Resource not found" })
          )
      }
    }))))
})

describe("roots in the modern era", () => {
  it.effect("a change of roots sends no roots/list_changed (the era has none): the next input_required asks again", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const roots = yield* Roots.Roots
      yield* client.initialized
      yield* roots.set([{ uri: "file:///other" }])
      const result = yield* client.callTool({ name: "where" })
      expect(result).toMatchObject(textResult("file:///other"))
      expect(yield* receivedWith("notifications/roots/list_changed")).toEqual([])
    }).pipe(Effect.provide(
      clientLayer({
        era: "modern",
        handlers: {
          "tools/call": ({ params }) => {
            const answer = (params.inputResponses as { where?: { roots: ReadonlyArray<{ uri: string }> } } | undefined)
              ?.where
            return Effect.succeed(
              answer === undefined ?
                { resultType: "input_required", inputRequests: { where: { method: "roots/list" } } } :
                textResult(answer.roots.map((r) => r.uri).join(","))
            )
          }
        }
      }).pipe(Layer.provideMerge(Roots.layer([{ uri: "file:///first" }])))
    )))
})

describe("tasks through the tasks extension (2026-07-28)", () => {
  /** A server whose tools/call answers with a task handle, and whose tasks/get walks the given states. */
  const taskServer = (states: ReadonlyArray<Record<string, unknown>>) => {
    let polls = 0
    return clientLayer({
      era: "modern",
      handlers: {
        "tools/call": () =>
          Effect.succeed({ resultType: "task", taskId: "t1", status: "working", ttlMs: null, pollIntervalMs: 1000 }),
        "tasks/get": () =>
          Effect.succeed({
            resultType: "complete",
            taskId: "t1",
            ttlMs: null,
            pollIntervalMs: 1000,
            ...states[polls++]
          }),
        "tasks/update": () => Effect.succeed({ resultType: "complete" }),
        "tasks/cancel": () => Effect.succeed({ resultType: "complete" })
      }
    })
  }

  const confirm = {
    method: "elicitation/create",
    params: {
      message: "go on?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean", default: true } } }
    }
  }

  it.effect("a task handle is polled at its interval; its questions are answered once with tasks/update; the result returns", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const call = yield* Effect.fork(client.callTool({ name: "build" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      for (let i = 0; i < 4; i++) {
        yield* TestClock.adjust("1 second")
        yield* eventually(Effect.map(receivedWith("tasks/get"), (l) => l.length >= i + 1))
      }
      expect(yield* Fiber.join(call)).toMatchObject(textResult("built"))
      expect((yield* receivedWith("tasks/get")).map((m) => m.params?.taskId)).toEqual(["t1", "t1", "t1", "t1"])
      const updates = yield* receivedWith("tasks/update")
      // asked twice (two polls listed the same key), answered once
      expect(updates.map((m) => m.params)).toMatchObject([
        { taskId: "t1", inputResponses: { q1: { action: "accept", content: { ok: true } } } }
      ])
    }).pipe(
      Effect.provide(taskServer([
        { status: "working" },
        { status: "input_required", inputRequests: { q1: confirm } },
        { status: "input_required", inputRequests: { q1: confirm } },
        { status: "completed", result: { resultType: "complete", ...textResult("built") } }
      ])),
      Effect.provide(Elicitation.layerAcceptDefaults)
    ))

  it.effect("a failed task is its JSON-RPC error; a cancelled one is RequestCancelled", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const failed = yield* Effect.fork(Effect.flip(client.callTool({ name: "build" })))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(failed)).toMatchObject({ _tag: "ProtocolError", code: -32603, message: "disk full" })
      const cancelled = yield* Effect.fork(Effect.flip(client.callTool({ name: "build" })))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 2))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(cancelled)).toMatchObject({ _tag: "RequestCancelled", method: "tools/call" })
    }).pipe(Effect.provide(taskServer([
      { status: "failed", error: { code: -32603, message: "disk full" } },
      { status: "cancelled" }
    ]))))

  it.effect("callTool's task option is the legacy era's: with a modern server the call goes out plain, the server decides", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const call = yield* Effect.fork(client.callTool({ name: "build" }, { task: true }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(call)).toMatchObject(textResult("built"))
      const [sent] = yield* receivedWith("tools/call")
      expect("task" in sent!.params!).toBe(false)
    }).pipe(Effect.provide(taskServer([
      { status: "completed", result: { resultType: "complete", ...textResult("built") } }
    ]))))

  it.effect("interrupting the call sends tasks/cancel for the task", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const call = yield* Effect.fork(client.callTool({ name: "build" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(receivedWith("tasks/get"), (l) => l.length === 1))
      yield* Fiber.interrupt(call)
      expect((yield* receivedWith("tasks/cancel")).map((m) => m.params?.taskId)).toEqual(["t1"])
    }).pipe(Effect.provide(taskServer([{ status: "working" }, { status: "working" }]))))
})
