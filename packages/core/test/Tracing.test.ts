import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import type * as Tracer from "effect/Tracer"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as TestServer from "../src/TestServer.js"
import * as TestTracer from "../src/TestTracer.js"
import { clientLayer, eventually, receivedWith, textResult } from "./utils.js"

const exitOf = (span: Tracer.Span) => span.status._tag === "Ended" ? span.status.exit : undefined

const parentOf = (span: Tracer.Span) => Option.getOrUndefined(span.parent)

const tools: TestServer.Options = {
  capabilities: { tools: {} },
  handlers: {
    "tools/call": ({ params }) =>
      params.name === "fails" ?
        Effect.fail(new McpError.ProtocolError({ code: -32602, message: "unknown tool" })) :
        params.name === "broken" ?
        Effect.succeed({ ...textResult("it broke"), isError: true }) :
        params.name === "hangs" ?
        Effect.never :
        Effect.succeed(textResult("done"))
  }
}

describe("request spans", () => {
  it.effect("a call is a client span under the caller's span, with MCP attributes and no arguments", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.callTool({ name: "echo", arguments: { password: "hunter2" } }).pipe(Effect.withSpan("app"))
      const [request] = yield* receivedWith("tools/call")
      const [span] = recorder.named("mcp.client tools/call")
      expect(span.kind).toBe("client")
      expect(parentOf(span)?._tag === "Span" && parentOf(span)).toMatchObject({ name: "app" })
      expect(Object.fromEntries(span.attributes)).toEqual({
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": "2025-11-25",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": String((request as { id: number }).id)
      })
      expect(exitOf(span) && Exit.isSuccess(exitOf(span)!)).toBe(true)
      // arguments never reach a span
      expect(JSON.stringify(recorder.spans.map((s) => [...s.attributes]))).not.toContain("hunter2")
      // the handshake is traced too
      const [connect] = recorder.named("mcp.client connect")
      expect(connect.attributes.get("mcp.connect.attempt")).toBe(1)
      const [initialize] = recorder.named("mcp.client initialize")
      expect(initialize.attributes.get("mcp.protocol.version")).toBe("2025-11-25")
      expect(exitOf(initialize) && Exit.isSuccess(exitOf(initialize)!)).toBe(true)
    }).pipe(Effect.provide(clientLayer(tools)), Effect.withTracer(recorder.tracer))
  })

  it.effect("a failure sets error.type: the JSON-RPC code, or tool_error for an isError result", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "fails" }))
      expect(error._tag).toBe("ProtocolError")
      const [failed] = recorder.named("mcp.client tools/call")
      expect(failed.attributes.get("error.type")).toBe("-32602")
      expect(failed.attributes.get("rpc.response.status_code")).toBe("-32602")
      expect(exitOf(failed) && Exit.isFailure(exitOf(failed)!)).toBe(true)

      const result = yield* client.callTool({ name: "broken" })
      expect(result.isError).toBe(true)
      const broken = recorder.named("mcp.client tools/call")[1]
      expect(broken.attributes.get("error.type")).toBe("tool_error")
      expect(broken.attributes.get("gen_ai.tool.name")).toBe("broken")
    }).pipe(Effect.provide(clientLayer(tools)), Effect.withTracer(recorder.tracer))
  })

  it.effect("a timeout sets error.type RequestTimeout", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "hangs" }, { timeout: "1 second" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* TestClock.adjust("2 seconds")
      expect((yield* Effect.flip(Fiber.join(fiber)))._tag).toBe("RequestTimeout")
      const [span] = recorder.named("mcp.client tools/call")
      expect(span.attributes.get("error.type")).toBe("RequestTimeout")
    }).pipe(Effect.provide(clientLayer(tools)), Effect.withTracer(recorder.tracer))
  })

  it.effect("a cancelled call ends its span interrupted, without an error.type", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.initialized
      const fiber = yield* Effect.fork(client.callTool({ name: "hangs" }))
      yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1))
      yield* Fiber.interrupt(fiber)
      const [span] = recorder.named("mcp.client tools/call")
      const exit = exitOf(span)
      expect(exit !== undefined && Exit.isInterrupted(exit)).toBe(true)
      expect(span.attributes.has("error.type")).toBe(false)
      // the server was told
      yield* eventually(Effect.map(receivedWith("notifications/cancelled"), (l) => l.length === 1))
    }).pipe(Effect.provide(clientLayer(tools)), Effect.withTracer(recorder.tracer))
  })
})

describe("connection spans", () => {
  it.effect("a lost connection opens a reconnect span that parents the next initialize and ends when ready", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.dropConnection
      yield* eventually(Effect.sync(() => recorder.named("mcp.client reconnect").length === 1))
      const [reconnect] = recorder.named("mcp.client reconnect")
      expect(reconnect.status._tag).toBe("Started")
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(test.connections, (n) => n === 2))
      yield* eventually(Effect.sync(() => reconnect.status._tag === "Ended"))
      expect(Exit.isSuccess(exitOf(reconnect)!)).toBe(true)
      expect(reconnect.attributes.get("mcp.connection.generation")).toBe(2)
      const initializes = recorder.named("mcp.client initialize")
      expect(initializes).toHaveLength(2)
      expect(parentOf(initializes[0])).not.toBe(reconnect)
      expect(parentOf(initializes[1])).toBe(reconnect)
      expect(recorder.named("mcp.client connect").map((span) => span.attributes.get("mcp.connect.attempt")))
        .toEqual([1, 2])
      // requests keep working on the new connection
      yield* client.callTool({ name: "echo" })
      expect(recorder.named("mcp.client tools/call")).toHaveLength(1)
    }).pipe(Effect.provide(clientLayer(tools)), Effect.withTracer(recorder.tracer))
  })

  it.effect("a reconnect cut short by closing the session ends its span with the session's error", () => {
    const recorder = TestTracer.make()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.failConnection(new McpError.TransportError({ reason: "Read", message: "gone" }))
      yield* eventually(Effect.sync(() => recorder.named("mcp.client reconnect").length === 1))
      const [reconnect] = recorder.named("mcp.client reconnect")
      expect(reconnect.status._tag).toBe("Started")
      return reconnect
    }).pipe(
      // leaving the layer closes the session while it waits to reconnect
      Effect.provide(clientLayer(tools)),
      Effect.flatMap((reconnect) => {
        const exit = exitOf(reconnect)
        expect(exit !== undefined && Exit.isFailure(exit) && !Exit.isInterrupted(exit)).toBe(true)
        expect(reconnect.attributes.get("error.type")).toBe("TransportError")
        return Effect.void
      }),
      Effect.withTracer(recorder.tracer)
    )
  })
})
