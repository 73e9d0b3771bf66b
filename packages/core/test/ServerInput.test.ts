import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Elicitation from "../src/Elicitation.js"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually, receivedWith, textResult } from "./utils.js"

const prototypeNames = ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf"]

const deepArray = (levels: number): unknown => {
  let value: unknown = []
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

describe("method names from the wire are looked up as own keys only", () => {
  it.effect("a server request named after an Object.prototype member gets -32601, and the connection lives", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      for (const method of prototypeNames) {
        const answer = yield* test.request(method, {})
        expect(answer).toMatchObject({ error: { code: McpError.ErrorCode.MethodNotFound } })
      }
      yield* client.ping
      expect(yield* test.connections).toBe(1)
    }).pipe(Effect.provide(clientLayer({}))))

  it.effect("notifications named after Object.prototype members are delivered like any other", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const seen = yield* Effect.fork(
        Stream.unwrapScoped(client.subscribeNotifications).pipe(
          Stream.take(prototypeNames.length + 1),
          Stream.runCollect
        )
      )
      yield* Effect.yieldNow()
      for (const method of prototypeNames) yield* test.notify(method)
      yield* test.notify("notifications/tools/list_changed")
      const methods = [...(yield* Fiber.join(seen))].map((n) => n.method)
      expect(methods).toEqual([...prototypeNames, "notifications/tools/list_changed"])
      yield* client.ping
      expect(yield* test.connections).toBe(1)
      expect((yield* client.state.get)._tag).toBe("Ready")
    }).pipe(Effect.provide(clientLayer({ capabilities: { tools: { listChanged: true } } }, { prefetch: false }))))

  it("form defaults fill properties named after Object.prototype members", () => {
    const requestedSchema = JSON.parse(
      `{"type":"object","properties":{"toString":{"type":"string","default":"a"},"__proto__":{"type":"string","default":"b"},"constructor":{"type":"string"}}}`
    )
    const filled = Elicitation.applyDefaults(requestedSchema, { constructor: "c" })
    expect(Object.entries(filled)).toEqual([["constructor", "c"], ["toString", "a"], ["__proto__", "b"]])
    expect(Object.getPrototypeOf(filled)).toBe(Object.prototype)
  })

  it.effect("the test server answers a request named after an Object.prototype member with -32601", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.session.request("constructor"))
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.MethodNotFound })
    }).pipe(Effect.provide(clientLayer({}))))
})

describe("input too deeply nested", () => {
  it.effect("a deeply nested result fails the call with a DecodeError, not a defect", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "deep" }))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "Schema", method: "tools/call" })
      yield* client.ping
    }).pipe(Effect.provide(clientLayer({
      handlers: { "tools/call": () => Effect.succeed({ content: [], isError: deepArray(5000) }) }
    }))))
})

describe("a frame that names its request", () => {
  const server: TestServer.Options = {
    handlers: {
      "tools/call": () => Effect.never,
      "resources/read": () => Effect.never
    }
  }

  it.effect("a malformed answer settles its call at once, without any time passing", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "x" }))
      const [call] = yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1 && l))
      const id = (call as JsonRpc.Request).id
      // a response holding both a result and an error still names its request
      const [frame] = JsonRpc.decode(
        JSON.stringify({ jsonrpc: "2.0", id, result: {}, error: { code: 1, message: "x" } })
      )
      yield* test.sendRaw(frame)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "Envelope" })
    }).pipe(Effect.provide(clientLayer(server))))

  it.effect("a connection the transport fails (an oversized frame) settles what was in flight at once", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      const call = yield* Effect.fork(client.callTool({ name: "x" }))
      const read = yield* Effect.fork(client.readResource("file:///a"))
      yield* eventually(Effect.map(receivedWith("resources/read"), (l) => l.length === 1))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* test.failConnection(
        new McpError.TransportError({ reason: "Read", message: "a frame of 67108864 bytes exceeds the limit" })
      )
      // no clock: the call's outcome is known as soon as the connection is gone
      const error = yield* Effect.flip(Fiber.join(call))
      expect(error).toMatchObject({ _tag: "OutcomeUnknown", method: "tools/call" })
      expect(error.message).toContain("exceeds the limit")
      // the read is sent again on the next connection
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(receivedWith("resources/read"), (l) => l.length === 2))
      expect(read.unsafePoll()).toBeNull()
      yield* Fiber.interrupt(read)
    }).pipe(Effect.provide(clientLayer({ ...server, capabilities: { tools: {}, resources: {} } }))))
})

describe("callbacks of the app on the inbound path", () => {
  it.effect("a progress callback that throws is logged; the call and the connection go on", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      const result = yield* client.session.request("tools/call", { name: "x" }, {
        onProgress: () => {
          throw new Error("boom")
        }
      })
      expect(result).toEqual(textResult("done"))
      expect(yield* test.connections).toBe(1)
    }).pipe(Effect.provide(clientLayer({
      handlers: {
        "tools/call": (ctx) => Effect.zipRight(ctx.progress(1, 2), Effect.succeed(textResult("done")))
      }
    }))))
})
