// Durable task handles within one process: two clients ("processes") on one SharedStore and one
// task server state. A task-augmented call leaves a record, the other client resumes it by id, the
// history keeps one record, and a cancel from both is sent once.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as DurableTasks from "../src/DurableTasks.js"
import * as Elicitation from "../src/Elicitation.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import type * as McpSchema from "../src/McpSchema.js"
import * as SharedStore from "../src/SharedStore.js"
import * as TestServer from "../src/TestServer.js"
import * as ToolCallLog from "../src/ToolCallLog.js"
import { clientInfo, eventually } from "./utils.js"

/** The tasks of one server, seen by every connection to it. */
const taskServer = () => {
  const tasks = new Map<string, McpSchema.TaskStatus>()
  const received: Array<string> = []
  const task = (taskId: string): McpSchema.Task => ({
    taskId,
    status: tasks.get(taskId)!,
    createdAt: "2026-11-27T00:00:00Z",
    lastUpdatedAt: "2026-11-27T00:00:00Z",
    ttl: null,
    pollInterval: 500
  })
  const known = (params: Record<string, unknown>, method: string) => {
    const taskId = String(params.taskId)
    received.push(`${method} ${taskId}`)
    return tasks.has(taskId) ?
      Effect.succeed(taskId) :
      Effect.fail(
        new McpError.ProtocolError({ code: McpError.ErrorCode.InvalidParams, message: `unknown task ${taskId}` })
      )
  }
  const options: TestServer.Options = {
    serverInfo: { name: "reports", version: "1.0.0" },
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    handlers: {
      "tools/list": () =>
        Effect.succeed({
          tools: [{
            name: "research",
            inputSchema: { type: "object" },
            outputSchema: { type: "object", properties: { pages: { type: "number" } }, required: ["pages"] },
            execution: { taskSupport: "required" }
          }]
        }),
      "tools/call": () =>
        Effect.sync(() => {
          const taskId = `t${tasks.size + 1}`
          tasks.set(taskId, "working")
          return { task: task(taskId) }
        }),
      "tasks/get": ({ params }) => Effect.map(known(params, "tasks/get"), task),
      "tasks/result": ({ params }) =>
        Effect.map(known(params, "tasks/result"), () => ({
          content: [{ type: "text", text: "12 pages" }],
          structuredContent: tasks.size > 1 ? { pages: "twelve" } : { pages: 12 }
        })),
      "tasks/cancel": ({ params }) =>
        Effect.map(known(params, "tasks/cancel"), (taskId) => {
          tasks.set(taskId, "cancelled")
          return task(taskId)
        })
    }
  }
  return { tasks, received, options }
}

/** One app "process": a client of the server, with a history, its task records on the shared store. */
const process = (server: TestServer.Options, store: SharedStore.Service, durable = true) =>
  McpClient.layer({ clientInfo, prefetch: false, server: "reports" }).pipe(
    Layer.provideMerge(durable ? DurableTasks.layer : Layer.empty),
    Layer.provideMerge(TestServer.layer(server)),
    Layer.provideMerge(ToolCallLog.layer()),
    Layer.provideMerge(Layer.succeed(SharedStore.SharedStore, store)),
    Layer.provideMerge(KeyValueStore.layerMemory)
  )

const build = (server: TestServer.Options, store: SharedStore.Service, durable = true) =>
  Effect.map(Layer.build(process(server, store, durable)), (context) => ({
    client: Context.get(context, McpClient.McpClient),
    log: Context.get(context, ToolCallLog.ToolCallLog)
  }))

const statuses = (events: Chunk.Chunk<McpClient.CallToolEvent>) =>
  Chunk.toReadonlyArray(events).map((e) => e._tag === "TaskStatus" ? e.task.status : e._tag)

describe("durable tasks", () => {
  it.scoped("a SharedStore alone turns no records on: without DurableTasks.layer a task is still resumed by id", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const store = SharedStore.fromKeyValueStore(
        yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
      )
      const { client } = yield* build(server.options, store, false)
      const result = yield* client.callTool({ name: "research", arguments: {} }).pipe(Effect.fork)
      yield* eventually(Effect.sync(() => server.tasks.size === 1))
      expect(yield* client.durableTasks).toEqual([])
      expect(yield* store.collection(DurableTasks.collection).list).toEqual([])
      const resumed = yield* Effect.fork(Stream.runCollect(client.resumeTask("t1")))
      yield* TestClock.adjust("1 second")
      server.tasks.set("t1", "completed")
      yield* TestClock.adjust("1 second")
      const events = statuses(yield* Fiber.join(resumed))
      expect(events[0]).toBe("working")
      expect(events.slice(-2)).toEqual(["completed", "Result"])
      expect(yield* store.collection(DurableTasks.collection).list).toEqual([])
      yield* Fiber.interrupt(result)
    }))

  it.scoped("another process resumes a task by id: its statuses and result, one history record, completed once", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const store = SharedStore.fromKeyValueStore(
        yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
      )
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(
        a.client.callToolStream({
          name: "research",
          arguments: { topic: "tides", callback: "https://u:p@x.test/?k=s" }
        })
          .pipe(Stream.runCollect)
      )
      const [record] = yield* eventually(
        Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1 && list)
      )
      expect(record).toMatchObject({
        server: "reports",
        taskId: "t1",
        tool: "research",
        status: "working",
        cancelRequested: false,
        done: false
      })
      // no argument is stored with the task (the history record has them)
      expect(JSON.stringify(yield* Effect.orDie(store.collection(DurableTasks.collection).list))).not.toContain("u:p")
      expect(record!.historyId).toBeDefined()

      const resumed = yield* Effect.fork(b.client.resumeTask("t1").pipe(Stream.runCollect))
      yield* eventually(Effect.sync(() => server.received.includes("tasks/get t1")))
      yield* TestClock.adjust("500 millis")
      server.tasks.set("t1", "completed")
      yield* TestClock.adjust("500 millis")
      const [viaA, viaB] = [yield* Fiber.join(call), yield* Fiber.join(resumed)]
      expect(statuses(viaB)).toEqual(["working", "working", "completed", "Result"])
      expect(Chunk.last(viaA)).toEqual(Chunk.last(viaB))

      // one history record for the call, completed, in both processes; no durable record left
      const history = yield* eventually(
        Effect.map(b.log.records.get, (list) => list[0]?.status === "Completed" && list)
      )
      expect(history).toHaveLength(1)
      expect(history[0]).toMatchObject({ tool: "research", taskId: "t1", taskStatus: "completed" })
      expect(history[0]!.result?.structuredContent).toEqual({ pages: 12 })
      expect(yield* a.log.records.get).toHaveLength(1)
      expect(yield* b.client.durableTasks).toEqual([])
    }))

  it.scoped("a resumed result is checked against the tool's outputSchema, as the original call's is", () =>
    Effect.gen(function*() {
      const server = taskServer()
      server.tasks.set("t0", "working") // the server answers the second task's result with a bad `pages`
      const store = SharedStore.fromKeyValueStore(
        yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
      )
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(a.client.callTool({ name: "research" }))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      const resumed = yield* Effect.fork(b.client.resumeTask("t2").pipe(Stream.runCollect))
      yield* eventually(Effect.sync(() => server.received.includes("tasks/get t2")))
      server.tasks.set("t2", "completed")
      yield* TestClock.adjust("500 millis")
      const error = yield* Effect.flip(Fiber.join(resumed))
      expect(error._tag).toBe("DecodeError")
      yield* Fiber.interrupt(call)
    }))

  it.scoped("two processes cancel at once: one tasks/cancel; the other gets the task", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const store = SharedStore.fromKeyValueStore(
        yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
      )
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(a.client.callTool({ name: "research" }))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      const [fromA, fromB] = yield* Effect.all([a.client.cancelTask("t1"), b.client.cancelTask("t1")], {
        concurrency: 2
      })
      expect(server.received.filter((m) => m.startsWith("tasks/cancel"))).toEqual(["tasks/cancel t1"])
      // the one that sent it sees the task cancelled; the other gets the task as `tasks/get` has it
      expect([fromA.status, fromB.status]).toContain("cancelled")
      // a later cancel is a no-op too
      expect((yield* a.client.cancelTask("t1")).status).toBe("cancelled")
      expect(server.received.filter((m) => m.startsWith("tasks/cancel"))).toHaveLength(1)
      yield* TestClock.adjust("500 millis")
      const error = yield* Effect.flip(Fiber.join(call))
      expect(error._tag).toBe("RequestCancelled")
      const history = yield* eventually(
        Effect.map(b.log.records.get, (list) => list[0]?.status === "Cancelled" && list)
      )
      expect(history).toHaveLength(1)
    }))

  it.scoped("a call interrupted after another process cancelled its task sends no second tasks/cancel", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const store = SharedStore.fromKeyValueStore(
        yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
      )
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(a.client.callTool({ name: "research" }))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      yield* b.client.cancelTask("t1")
      yield* Fiber.interrupt(call)
      expect(server.received.filter((m) => m.startsWith("tasks/cancel"))).toEqual(["tasks/cancel t1"])
      // the interrupted call still completes its history record, once
      const history = yield* eventually(
        Effect.map(b.log.records.get, (list) => list[0]?.status === "Cancelled" && list)
      )
      expect(history).toHaveLength(1)
    }))

  it.scoped("resuming a task the server does not know fails with TaskNotFound", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const store = SharedStore.fromKeyValueStore(
        yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
      )
      const b = yield* build(server.options, store)
      const error = yield* Effect.flip(Stream.runDrain(b.client.resumeTask("nope")))
      expect(error).toBeInstanceOf(DurableTasks.TaskNotFound)
      expect(error).toMatchObject({ _tag: "TaskNotFound", server: "reports", taskId: "nope" })
    }))
})

/** A 2026-07-28 server of the tasks extension: tools/call answers a task handle; tasks/get carries the result. */
const handleServer = () => {
  const tasks = new Map<string, { status: string; inputRequests?: Record<string, unknown> }>()
  const received: Array<string> = []
  const updates: Array<unknown> = []
  const task = (taskId: string) => {
    const state = tasks.get(taskId)!
    return {
      taskId,
      ...state,
      ttlMs: null,
      pollIntervalMs: 500,
      ...(state.status === "completed" ?
        {
          result: {
            resultType: "complete",
            content: [{ type: "text", text: "12 pages" }],
            structuredContent: { pages: 12 }
          }
        } :
        state.status === "failed" ?
        { error: { code: -32603, message: "disk full" } } :
        {})
    }
  }
  const known = (params: Record<string, unknown>, method: string) => {
    const taskId = String(params.taskId)
    received.push(`${method} ${taskId}`)
    return tasks.has(taskId) ?
      Effect.succeed(taskId) :
      Effect.fail(
        new McpError.ProtocolError({ code: McpError.ErrorCode.InvalidParams, message: `unknown task ${taskId}` })
      )
  }
  const options: TestServer.Options = {
    era: "modern",
    serverInfo: { name: "reports", version: "1.0.0" },
    capabilities: { tools: {} },
    handlers: {
      "tools/list": () =>
        Effect.succeed({
          tools: [{
            name: "research",
            inputSchema: { type: "object" },
            outputSchema: { type: "object", properties: { pages: { type: "number" } }, required: ["pages"] }
          }]
        }),
      "tools/call": () =>
        Effect.sync(() => {
          const taskId = `t${tasks.size + 1}`
          tasks.set(taskId, { status: "working" })
          return { resultType: "task", ...task(taskId) }
        }),
      "tasks/get": ({ params }) =>
        Effect.map(known(params, "tasks/get"), (id) => ({ resultType: "complete", ...task(id) })),
      "tasks/update": ({ params }) =>
        Effect.map(known(params, "tasks/update"), (id) => {
          updates.push(params.inputResponses)
          tasks.set(id, { status: "working" })
          return { resultType: "complete" }
        }),
      "tasks/cancel": ({ params }) =>
        Effect.map(known(params, "tasks/cancel"), (id) => {
          tasks.set(id, { status: "cancelled" })
          return { resultType: "complete" }
        })
    }
  }
  return { tasks, received, updates, options }
}

describe("durable tasks of the 2026-07-28 tasks extension", () => {
  const memoryStore = Effect.map(
    Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory),
    SharedStore.fromKeyValueStore
  )

  it.scoped("a task handle leaves a record; another process resumes it by id: statuses, result, one history record", () =>
    Effect.gen(function*() {
      const server = handleServer()
      const store = yield* memoryStore
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(
        a.client.callToolStream({ name: "research", arguments: { callback: "https://u:p@x.test/" } })
          .pipe(Stream.runCollect)
      )
      const [record] = yield* eventually(
        Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1 && list)
      )
      expect(record).toMatchObject({
        server: "reports",
        taskId: "t1",
        tool: "research",
        status: "working",
        cancelRequested: false,
        done: false
      })
      expect(record!.historyId).toBeDefined()
      expect(JSON.stringify(yield* Effect.orDie(store.collection(DurableTasks.collection).list))).not.toContain("u:p")

      const resumed = yield* Effect.fork(b.client.resumeTask("t1").pipe(Stream.runCollect))
      yield* eventually(Effect.sync(() => server.received.includes("tasks/get t1")))
      server.tasks.set("t1", { status: "input_required", inputRequests: {} })
      yield* TestClock.adjust("500 millis")
      // the status change is recorded for every process
      yield* eventually(
        Effect.map(Effect.orDie(b.client.durableTasks), (list) => list[0]?.status === "input_required")
      )
      server.tasks.set("t1", { status: "completed" })
      yield* TestClock.adjust("500 millis")
      const [viaA, viaB] = [yield* Fiber.join(call), yield* Fiber.join(resumed)]
      expect(statuses(viaB).slice(-2)).toEqual(["completed", "Result"])
      expect(statuses(viaA)).toEqual(["working", "input_required", "completed", "Result"])
      expect(Chunk.last(viaA)).toEqual(Chunk.last(viaB))

      const history = yield* eventually(
        Effect.map(b.log.records.get, (list) => list[0]?.status === "Completed" && list)
      )
      expect(history).toHaveLength(1)
      expect(history[0]).toMatchObject({ tool: "research", taskId: "t1", taskStatus: "completed" })
      expect(history[0]!.result?.structuredContent).toEqual({ pages: 12 })
      expect(yield* b.client.durableTasks).toEqual([])
    }))

  it.scoped("a resumed task that fails is its JSON-RPC error; the history record fails once", () =>
    Effect.gen(function*() {
      const server = handleServer()
      const store = yield* memoryStore
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(Effect.flip(a.client.callTool({ name: "research" })))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      const resumed = yield* Effect.fork(Effect.flip(Stream.runDrain(b.client.resumeTask("t1"))))
      yield* eventually(Effect.sync(() => server.received.includes("tasks/get t1")))
      server.tasks.set("t1", { status: "failed" })
      yield* TestClock.adjust("500 millis")
      expect(yield* Fiber.join(resumed)).toMatchObject({ _tag: "ProtocolError", code: -32603, message: "disk full" })
      expect(yield* Fiber.join(call)).toMatchObject({ _tag: "ProtocolError", message: "disk full" })
      const history = yield* eventually(Effect.map(b.log.records.get, (list) => list[0]?.status === "Failed" && list))
      expect(history).toHaveLength(1)
      expect(yield* b.client.durableTasks).toEqual([])
    }))

  it.scoped("a resumed input_required task is answered with the resuming client's handlers through tasks/update", () =>
    Effect.gen(function*() {
      const server = handleServer()
      const store = yield* memoryStore
      // process A (no elicitation handler) makes the call, then stops: its task runs on
      const scopeA = yield* Scope.make()
      const a = yield* Scope.extend(build(server.options, store), scopeA)
      const b = yield* Effect.provide(build(server.options, store), Elicitation.layerAcceptDefaults)
      yield* Effect.fork(a.client.callTool({ name: "research" }))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      yield* Scope.close(scopeA, Exit.void)
      server.tasks.set("t1", {
        status: "input_required",
        inputRequests: {
          q1: {
            method: "elicitation/create",
            params: {
              message: "go on?",
              requestedSchema: { type: "object", properties: { ok: { type: "boolean", default: true } } }
            }
          }
        }
      })
      const resumed = yield* Effect.fork(b.client.resumeTask("t1").pipe(Stream.runCollect))
      yield* eventually(Effect.sync(() => server.updates.length === 1))
      expect(server.updates).toEqual([{ q1: { action: "accept", content: { ok: true } } }])
      server.tasks.set("t1", { status: "completed" })
      yield* TestClock.adjust("500 millis")
      expect(Chunk.last(yield* Fiber.join(resumed))).toMatchObject({ _tag: "Some", value: { _tag: "Result" } })
      expect(server.received.filter((m) => m.startsWith("tasks/cancel"))).toEqual([])
      expect(yield* b.client.durableTasks).toEqual([])
    }))

  it.scoped("two processes cancel at once: one tasks/cancel; an interrupted call sends none after that", () =>
    Effect.gen(function*() {
      const server = handleServer()
      const store = yield* memoryStore
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const call = yield* Effect.fork(a.client.callTool({ name: "research" }))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      const [fromA, fromB] = yield* Effect.all([a.client.cancelTask("t1"), b.client.cancelTask("t1")], {
        concurrency: 2
      })
      expect([fromA.status, fromB.status]).toEqual(["cancelled", "cancelled"])
      yield* Fiber.interrupt(call)
      expect(server.received.filter((m) => m.startsWith("tasks/cancel"))).toEqual(["tasks/cancel t1"])
      const history = yield* eventually(
        Effect.map(b.log.records.get, (list) => list[0]?.status === "Cancelled" && list)
      )
      expect(history).toHaveLength(1)
    }))

  it.scoped("resuming a task id the 2026 server does not know fails with TaskNotFound; its record goes", () =>
    Effect.gen(function*() {
      const server = handleServer()
      const store = yield* memoryStore
      const a = yield* build(server.options, store)
      const b = yield* build(server.options, store)
      const error = yield* Effect.flip(Stream.runDrain(b.client.resumeTask("nope")))
      expect(error).toMatchObject({ _tag: "TaskNotFound", server: "reports", taskId: "nope" })
      // a recorded task the server has forgotten (expired): resuming it fails, and removes the record
      yield* Effect.fork(a.client.callTool({ name: "research" }))
      yield* eventually(Effect.map(Effect.orDie(b.client.durableTasks), (list) => list.length === 1))
      server.tasks.delete("t1")
      expect(yield* Effect.flip(Stream.runDrain(b.client.resumeTask("t1")))).toMatchObject({ _tag: "TaskNotFound" })
      expect(yield* b.client.durableTasks).toEqual([])
      const history = yield* b.log.records.get
      expect(history.map((r) => r.status)).toEqual(["Failed"])
    }))
})
