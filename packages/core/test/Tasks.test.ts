import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as McpClient from "../src/McpClient.js"
import type * as McpSchema from "../src/McpSchema.js"
import type * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually, receivedWith, textResult } from "./utils.js"

const task = (status: McpSchema.TaskStatus, pollInterval = 500): McpSchema.Task => ({
  taskId: "t1",
  status,
  createdAt: "2026-11-21T00:00:00Z",
  lastUpdatedAt: "2026-11-21T00:00:00Z",
  ttl: null,
  pollInterval
})

/** A task server whose task moves through the given statuses, one per `tasks/get`. */
const taskServer = (statuses: ReadonlyArray<McpSchema.TaskStatus>): TestServer.Options => {
  let polls = 0
  return {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    handlers: {
      "tools/list": () =>
        Effect.succeed({
          tools: [
            { name: "research", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
            { name: "quick", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } }
          ]
        }),
      "tools/call": ({ params }) =>
        params.task === undefined ? Effect.succeed(textResult("direct")) : Effect.succeed({ task: task("working") }),
      "tasks/get": () => Effect.succeed(task(statuses[Math.min(polls++, statuses.length - 1)])),
      "tasks/result": () => Effect.succeed(textResult("report")),
      "tasks/cancel": () => Effect.succeed(task("cancelled")),
      "tasks/list": () => Effect.succeed({ tasks: [task("working")] })
    }
  }
}

const polls = Effect.map(receivedWith("tasks/get"), (l) => l.length)

describe("tasks", () => {
  it.effect("a tool that requires tasks is polled at the server's pollInterval and returns the real result", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.fork(client.callToolStream({ name: "research" }).pipe(Stream.runCollect))
      const [call] = yield* eventually(Effect.map(receivedWith("tools/call"), (l) => l.length === 1 && l))
      expect(call.params?.task).toEqual({})
      yield* TestClock.adjust("499 millis")
      expect(yield* polls).toBe(0)
      yield* TestClock.adjust("1 millis")
      yield* eventually(Effect.map(polls, (n) => n === 1))
      yield* TestClock.adjust("499 millis")
      expect(yield* polls).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* eventually(Effect.map(polls, (n) => n === 2))
      const events = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
      expect(events.map((e) => e._tag === "TaskStatus" ? e.task.status : e._tag)).toEqual([
        "working",
        "working",
        "completed",
        "Result"
      ])
      expect(events.at(-1)).toEqual({ _tag: "Result", result: textResult("report") })
      expect(yield* receivedWith("tasks/result")).toHaveLength(1)
    }).pipe(Effect.provide(clientLayer(taskServer(["working", "completed"])))))

  it.effect("an optional-task tool runs directly unless a task is asked for", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect(yield* client.callTool({ name: "quick" })).toEqual(textResult("direct"))
      const fiber = yield* Effect.fork(client.callTool({ name: "quick" }, { task: { ttl: 60_000 } }))
      yield* TestClock.adjust("500 millis")
      expect(yield* Fiber.join(fiber)).toEqual(textResult("report"))
      const calls = yield* receivedWith("tools/call")
      expect(calls[1].params?.task).toEqual({ ttl: 60_000 })
    }).pipe(Effect.provide(clientLayer(taskServer(["completed"])))))

  it.effect("input_required goes straight to tasks/result", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.fork(client.callTool({ name: "research" }))
      yield* TestClock.adjust("500 millis")
      expect(yield* Fiber.join(fiber)).toEqual(textResult("report"))
      expect(yield* polls).toBe(1)
    }).pipe(Effect.provide(clientLayer(taskServer(["input_required"])))))

  it.effect("a task the server cancels fails with RequestCancelled", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.fork(client.callTool({ name: "research" }))
      yield* TestClock.adjust("500 millis")
      expect(yield* Effect.flip(Fiber.join(fiber))).toMatchObject({ _tag: "RequestCancelled" })
    }).pipe(Effect.provide(clientLayer(taskServer(["cancelled"])))))

  it.effect("interrupting a task-augmented call sends tasks/cancel", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.fork(client.callTool({ name: "research" }))
      yield* TestClock.adjust("1500 millis")
      yield* eventually(Effect.map(polls, (n) => n === 3))
      yield* Fiber.interrupt(fiber)
      const [cancel] = yield* eventually(Effect.map(receivedWith("tasks/cancel"), (l) => l.length === 1 && l))
      expect(cancel.params).toEqual({ taskId: "t1" })
      expect(yield* receivedWith("notifications/cancelled")).toEqual([])
    }).pipe(Effect.provide(clientLayer(taskServer(["working"])))))

  it.effect("task status is a stream that ends at a terminal status", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.fork(client.taskStatus("t1").pipe(Stream.map((t) => t.status), Stream.runCollect))
      yield* TestClock.adjust("2 seconds")
      expect(Chunk.toReadonlyArray(yield* Fiber.join(fiber))).toEqual(["working", "working", "failed"])
      expect(yield* client.listTasks).toHaveLength(1)
    }).pipe(Effect.provide(clientLayer(taskServer(["working", "working", "failed"])))))

  it.effect("a task's result is checked against the tool's outputSchema, as a direct call's is", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "measure" }))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "OutputSchema", method: "tools/call" })
      expect(yield* receivedWith("tasks/result")).toHaveLength(1)
      const streamed = yield* Effect.flip(Stream.runCollect(client.callToolStream({ name: "measure" })))
      expect(streamed).toMatchObject({ _tag: "DecodeError", reason: "OutputSchema" })
    }).pipe(Effect.provide(clientLayer({
      capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
      handlers: {
        "tools/list": () =>
          Effect.succeed({
            tools: [{
              name: "measure",
              inputSchema: { type: "object" },
              outputSchema: { type: "object", properties: { value: { type: "number" } }, required: ["value"] },
              execution: { taskSupport: "required" }
            }]
          }),
        "tools/call": () => Effect.succeed({ task: task("completed") }),
        "tasks/result": () => Effect.succeed({ ...textResult("report"), structuredContent: { value: "high" } })
      }
    }))))
})
