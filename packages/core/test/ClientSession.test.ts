import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Elicitation from "../src/Elicitation.js"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as Roots from "../src/Roots.js"
import * as Sampling from "../src/Sampling.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually, receivedWith, textResult } from "./utils.js"

describe("initialize", () => {
  it.effect("negotiates, sends initialized, and exposes the server's answer", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const init = yield* client.initialized
      expect(init.serverInfo.name).toBe("test-server")
      expect(init.protocolVersion).toBe("2025-11-25")
      const [request] = yield* receivedWith("initialize")
      expect(request.params).toMatchObject({ protocolVersion: "2025-11-25", clientInfo: { name: "test-client" } })
      yield* eventually(Effect.map(receivedWith("notifications/initialized"), (l) => l.length === 1))
    }).pipe(Effect.provide(clientLayer({}))))

  it.effect("accepts an older version the server chooses", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.initialized).protocolVersion).toBe("2025-03-26")
    }).pipe(Effect.provide(clientLayer({ protocolVersion: "2025-03-26" }))))

  it.effect("fails with a typed error for a version it does not speak", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.initialized)
      expect(error._tag).toBe("ProtocolError")
      expect(error.message).toContain("1999-01-01")
    }).pipe(Effect.provide(clientLayer({ protocolVersion: "1999-01-01" }))))

  it.effect("advertises no capability without handlers", () =>
    Effect.gen(function*() {
      yield* (yield* McpClient.McpClient).initialized
      const [request] = yield* receivedWith("initialize")
      expect(request.params?.capabilities).toEqual({})
    }).pipe(Effect.provide(clientLayer({}))))

  it.effect("advertises sampling, elicitation and roots when their services are provided", () =>
    Effect.gen(function*() {
      yield* (yield* McpClient.McpClient).initialized
      const [request] = yield* receivedWith("initialize")
      expect(request.params?.capabilities).toEqual({
        sampling: { tools: {} },
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true }
      })
    }).pipe(
      Effect.provide(
        clientLayer({}).pipe(
          Layer.provide(Layer.mergeAll(
            Sampling.layer(() => Effect.die("unused"), { tools: true }),
            Elicitation.layer(() => Effect.die("unused"), { modes: ["form", "url"] }),
            Roots.layer([])
          ))
        )
      )
    ))
})

describe("requests", () => {
  const server: TestServer.Options = {
    capabilities: { tools: { listChanged: true } },
    handlers: {
      "tools/list": ({ params }) =>
        Effect.succeed(
          params.cursor === undefined ?
            { tools: [{ name: "a", inputSchema: { type: "object" } }], nextCursor: "p2" } :
            { tools: [{ name: "b", inputSchema: { type: "object", $defs: { x: {} } } }] }
        ),
      "tools/call": ({ params }) => Effect.succeed(textResult(`hello ${(params.arguments as any)?.who}`))
    }
  }

  it.effect("lists every page and calls a tool", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools
      expect(tools.map((t) => t.name)).toEqual(["a", "b"])
      expect(JSON.stringify(tools[1].inputSchema)).toBe(`{"type":"object","$defs":{"x":{}}}`)
      const result = yield* client.callTool({ name: "a", arguments: { who: "world" } })
      expect(result.content).toEqual([{ type: "text", text: "hello world" }])
      expect(yield* client.tools.get).toHaveLength(2)
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("concurrent list calls share one request", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const [a, b] = yield* Effect.all([client.listTools, client.listTools], { concurrency: 2 })
      expect(a).toEqual(b)
      // two pages, fetched once
      expect(yield* receivedWith("tools/list")).toHaveLength(2)
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("refreshes the live tool view on list_changed", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      expect(yield* client.tools.get).toEqual([])
      yield* test.notify("notifications/tools/list_changed")
      const tools = yield* eventually(Effect.map(client.tools.get, (t) => t.length === 2 && t))
      expect(tools.map((t) => t.name)).toEqual(["a", "b"])
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("fails with UnsupportedCapability for a feature the server lacks", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.listPrompts)
      expect(error).toBeInstanceOf(McpError.UnsupportedCapability)
      expect(McpError.isMcpClientError(error)).toBe(true)
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("turns a JSON-RPC error into a ProtocolError and a bad result into a DecodeError", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "x" }))
      expect(error).toMatchObject({ _tag: "ProtocolError", code: -32000, method: "tools/call" })
      const bad = yield* Effect.flip(client.listTools)
      expect(bad).toMatchObject({ _tag: "DecodeError", reason: "Schema", method: "tools/list" })
    }).pipe(Effect.provide(clientLayer({
      handlers: {
        "tools/call": () => Effect.fail(new McpError.ProtocolError({ code: -32000, message: "nope" })),
        "tools/list": () => Effect.succeed({ tools: "none" })
      }
    }))))

  const toolWarnings: Array<string> = []
  it.effect("a tool that does not decode is left out with a warning naming it; the others are kept", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools
      // a root union of objects is kept (ToolFormat flattens it for the providers)
      expect(tools.map((t) => t.name)).toEqual(["good", "union", "fine"])
      expect(yield* client.droppedTools).toEqual([
        { name: "bad", message: expect.stringContaining("expected a JSON Schema with type \"object\"") },
        { name: undefined, message: expect.stringContaining("name") }
      ])
      expect(toolWarnings.join("\n")).toContain("tools/list: left out tool \"bad\"")
      expect(yield* client.tools.get).toEqual(tools)
    }).pipe(
      Effect.provide(clientLayer({
        capabilities: { tools: {} },
        handlers: {
          "tools/list": () =>
            Effect.succeed({
              tools: [
                { name: "good", inputSchema: { type: "object" } },
                { name: "bad", inputSchema: { type: "string" } },
                { name: "union", inputSchema: { anyOf: [{ type: "object" }, { type: "object" }] } },
                { name: 1, inputSchema: { type: "object" } },
                { name: "fine", inputSchema: { type: "object", properties: {} } }
              ]
            })
        }
      })),
      Effect.provide(
        Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void toolWarnings.push(String(message))))
      )
    ))
})

describe("timeouts and cancellation", () => {
  const server: TestServer.Options = {
    handlers: {
      "tools/call": (ctx) => (ctx.params.name === "slow" ?
        Effect.gen(function*() {
          for (let i = 1; i <= 4; i++) {
            yield* Effect.sleep("40 seconds")
            yield* ctx.progress(i, 4)
          }
          return textResult("done")
        }) :
        Effect.never),
      "tools/list": () => Effect.succeed({ tools: [] })
    }
  }

  it.effect("fails an unanswered request after the idle budget and tells the server", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "hang" }, { timeout: "10 seconds" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("9 seconds")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toEqual(new McpError.RequestTimeout({ method: "tools/call", kind: "idle", millis: 10_000 }))
      const [call] = yield* receivedWith("tools/call")
      const [cancelled] = yield* eventually(
        Effect.map(receivedWith("notifications/cancelled"), (l) => l.length > 0 && l)
      )
      expect(cancelled.params).toEqual({ requestId: (call as JsonRpc.Request).id, reason: "timeout" })
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("progress resets the idle budget (a progress token is always sent)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const seen: Array<number> = []
      const fiber = yield* Effect.fork(
        client.callTool({ name: "slow" }, {
          timeout: "60 seconds",
          onProgress: (p) => Effect.sync(() => seen.push(p.progress))
        })
      )
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      const [call] = yield* receivedWith("tools/call")
      expect((call.params?._meta as any)?.progressToken).toBeDefined()
      yield* TestClock.adjust("160 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.content).toEqual([{ type: "text", text: "done" }])
      expect(seen).toEqual([1, 2, 3, 4])
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("the hard maximum wins over progress", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(
        client.callTool({ name: "slow" }, { timeout: "60 seconds", maxTotalTimeout: "100 seconds" })
      )
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("100 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "RequestTimeout", kind: "total", millis: 100_000 })
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("without reset-on-progress the idle budget runs out despite progress", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(
        client.callTool({ name: "slow" }, { timeout: "60 seconds", resetTimeoutOnProgress: false })
      )
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("60 seconds")
      expect(yield* Effect.flip(Fiber.join(fiber))).toMatchObject({ _tag: "RequestTimeout", kind: "idle" })
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("\"none\" waits as long as it takes", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "hang" }, { timeout: "none" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("10 days")
      expect(fiber.unsafePoll()).toBeNull()
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("interrupting the fiber sends notifications/cancelled with the request id", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "hang" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* Fiber.interrupt(fiber)
      const [call] = yield* receivedWith("tools/call")
      const cancelled = yield* eventually(Effect.map(receivedWith("notifications/cancelled"), (l) => l.length > 0 && l))
      expect(cancelled).toHaveLength(1)
      expect(cancelled[0].params).toMatchObject({ requestId: (call as JsonRpc.Request).id })
      // the session is still usable
      expect(yield* client.listTools).toEqual([])
    }).pipe(Effect.provide(clientLayer({ ...server, capabilities: { tools: {} } }))))

  it.effect("a finished request is not cancelled", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools
      yield* Effect.yieldNow()
      expect(yield* receivedWith("notifications/cancelled")).toEqual([])
    }).pipe(Effect.provide(clientLayer(server))))
})

describe("server requests", () => {
  it.effect("answers ping, sampling, elicitation and roots, and -32601 without a handler", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const server = yield* TestServer.TestServer
      yield* client.initialized
      expect(yield* server.request("ping")).toMatchObject({ result: {} })
      const sampled = yield* server.request("sampling/createMessage", {
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        maxTokens: 10
      })
      expect(sampled).toMatchObject({ result: { model: "m", content: { type: "text", text: "echo: hi" } } })
      const roots = yield* server.request("roots/list")
      expect(roots).toMatchObject({ result: { roots: [{ uri: "file:///work", name: "work" }] } })
      const bad = yield* server.request("sampling/createMessage", { messages: "nope" })
      expect(bad).toMatchObject({ error: { code: -32602 } })
      const unknown = yield* server.request("elicitation/create", {
        message: "x",
        requestedSchema: { type: "object", properties: {} }
      })
      expect(unknown).toMatchObject({ error: { code: -32601 } })
    }).pipe(
      Effect.provide(
        clientLayer({}).pipe(
          Layer.provide(Layer.mergeAll(
            Sampling.layer((params) =>
              Effect.succeed({
                role: "assistant" as const,
                model: "m",
                content: { type: "text" as const, text: `echo: ${(params.messages[0].content as any).text}` }
              })
            ),
            Roots.layer([{ uri: "file:///work", name: "work" }])
          ))
        )
      )
    ))

  it.effect("sends roots/list_changed when the roots change", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const roots = yield* Roots.Roots
      yield* client.initialized
      yield* Effect.yieldNow()
      yield* roots.set([{ uri: "file:///other" }])
      yield* eventually(Effect.map(receivedWith("notifications/roots/list_changed"), (l) => l.length === 1))
    }).pipe(Effect.provide(clientLayer({}).pipe(Layer.provideMerge(Roots.layer([]))))))
})

describe("reconnect and replay", () => {
  let executions = 0
  const server: TestServer.Options = {
    capabilities: { tools: {} },
    handlers: {
      "tools/list": () =>
        Effect.succeed({
          tools: [
            { name: "create", inputSchema: { type: "object" } },
            { name: "lookup", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }
          ]
        }),
      "tools/call": () => Effect.sync(() => executions++).pipe(Effect.zipRight(Effect.never))
    }
  }

  const dropAfterCall = (call: Effect.Effect<unknown, McpError.McpClientError>, calls: number) =>
    Effect.gen(function*() {
      const test = yield* TestServer.TestServer
      const fiber = yield* Effect.fork(call)
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === calls))
      yield* test.dropConnection
      return fiber
    })

  it.effect("a non-idempotent call in flight fails with OutcomeUnknown and is never re-sent", () =>
    Effect.gen(function*() {
      executions = 0
      const client = yield* McpClient.McpClient
      yield* client.listTools
      const fiber = yield* dropAfterCall(client.callTool({ name: "create" }), 1)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "OutcomeUnknown", toolName: "create" })
      // the session comes back on a new connection
      yield* TestClock.adjust("1 second")
      expect(yield* client.listTools).toHaveLength(2)
      expect(yield* (yield* TestServer.TestServer).connections).toBe(2)
      expect(yield* receivedWith("tools/call")).toHaveLength(1)
      expect(executions).toBe(1)
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("reads in flight are replayed on the new connection", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const fiber = yield* Effect.fork(client.readResource("file:///a"))
      yield* eventually(Effect.map(receivedWith("resources/read"), (l) => l.length === 1))
      yield* test.dropConnection
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(receivedWith("resources/read"), (l) => l.length === 2))
      const result = yield* Fiber.join(fiber)
      expect(result.contents).toEqual([{ uri: "file:///a", text: "second" }])
    }).pipe(Effect.provide(clientLayer((() => {
      let reads = 0
      return {
        capabilities: { resources: {} },
        handlers: {
          "resources/read": () =>
            ++reads === 1 ? Effect.never : Effect.succeed({ contents: [{ uri: "file:///a", text: "second" }] })
        }
      }
    })()))))

  it.effect("a read-only tool of a trusted server is replayed", () =>
    Effect.gen(function*() {
      executions = 0
      const client = yield* McpClient.McpClient
      yield* client.listTools
      const fiber = yield* dropAfterCall(client.callTool({ name: "lookup" }), 1)
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 2))
      expect(fiber.unsafePoll()).toBeNull()
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(clientLayer(server, { trusted: true }))))

  it.effect("a replayable call in flight when an answer over the size limit ends the connection is not sent again", () =>
    Effect.gen(function*() {
      executions = 0
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.listTools
      const fiber = yield* Effect.fork(client.callTool({ name: "lookup" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      // the transport cannot tell which request the oversized line answered: sending them again would
      // bring the same answer back and end every next connection the same way
      yield* test.failConnection(
        new McpError.TransportError({
          reason: "Read",
          phase: "message-size",
          message: "stdio:node: the server sent a line longer than the limit of 16777216 bytes"
        })
      )
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "TransportError", phase: "message-size" })
      expect(error.message).toContain("longer than the limit")
      // the session comes back on a new connection, and the call was sent once
      yield* TestClock.adjust("1 second")
      expect(yield* client.listTools).toHaveLength(2)
      expect(yield* test.connections).toBe(2)
      expect(yield* receivedWith("tools/call")).toHaveLength(1)
    }).pipe(Effect.provide(clientLayer(server, { trusted: true }))))

  it.effect("input that is not a message fails the request it names, and the session survives", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.sendRaw(JsonRpc.malformed("Json", "garbage"))
      const fiber = yield* Effect.fork(client.callTool({ name: "create" }))
      const [call] = yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1 && l))
      yield* test.sendRaw(JsonRpc.malformed("Envelope", "bad response", (call as JsonRpc.Request).id))
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "Envelope" })
      expect(yield* client.listTools).toHaveLength(2)
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("re-subscribes and restores the log level after a reconnect", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.subscribe("file:///watched")
      yield* client.setLoggingLevel("debug")
      yield* test.dropConnection
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(receivedWith("resources/subscribe"), (l) => l.length === 2))
      yield* eventually(Effect.map(receivedWith("logging/setLevel"), (l) => l.length === 2))
      const subscribes = yield* receivedWith("resources/subscribe")
      expect(subscribes.map((m) => m.params?.uri)).toEqual(["file:///watched", "file:///watched"])
    }).pipe(Effect.provide(clientLayer({
      capabilities: { resources: { subscribe: true }, logging: {} },
      handlers: {
        "resources/subscribe": () => Effect.succeed({}),
        "logging/setLevel": () => Effect.succeed({})
      }
    }))))
})

describe("notifications", () => {
  it.effect("fans out log messages and resource updates", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const logs = yield* Effect.fork(client.logMessages.pipe(Stream.take(1), Stream.runCollect))
      const updates = yield* Effect.fork(client.resourceUpdates.pipe(Stream.take(1), Stream.runCollect))
      yield* Effect.yieldNow()
      yield* test.notify("notifications/message", { level: "info", data: "hello" })
      yield* test.notify("notifications/resources/updated", { uri: "file:///x" })
      expect([...(yield* Fiber.join(logs))]).toEqual([{ level: "info", data: "hello" }])
      expect([...(yield* Fiber.join(updates))]).toEqual([{ uri: "file:///x" }])
    }).pipe(Effect.provide(clientLayer({}))))
})
