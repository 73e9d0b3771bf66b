import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as ApprovalDecision from "../src/ApprovalDecision.js"
import * as ApprovalPolicy from "../src/ApprovalPolicy.js"
import * as Approver from "../src/Approver.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import type * as McpSchema from "../src/McpSchema.js"
import * as SharedStore from "../src/SharedStore.js"
import * as TestServer from "../src/TestServer.js"
import * as ToolCallLog from "../src/ToolCallLog.js"
import { clientInfo, eventually, textResult } from "./utils.js"

const task = (status: McpSchema.TaskStatus): McpSchema.Task => ({
  taskId: "t1",
  status,
  createdAt: "2026-11-21T00:00:00Z",
  lastUpdatedAt: "2026-11-21T00:00:00Z",
  ttl: null,
  pollInterval: 100
})

const makeServer = (release: Deferred.Deferred<void>): TestServer.Options => {
  let polls = 0
  return {
    capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
    handlers: {
      "tools/list": () =>
        Effect.succeed({
          tools: [
            { name: "ok", inputSchema: { type: "object" } },
            { name: "research", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }
          ]
        }),
      "tools/call": ({ params, progress }) => {
        switch (params.name) {
          case "ok":
            return Effect.succeed(textResult("fine"))
          case "fails":
            return Effect.succeed({ ...textResult("no such file"), isError: true })
          case "broken":
            return Effect.fail(
              new McpError.ProtocolError({ code: -32000, message: "backend down", data: { token: "s3cr3t-token" } })
            )
          case "slow":
            return Effect.zipRight(
              progress(1, 2, "half way"),
              Effect.as(Deferred.await(release), textResult("slow done"))
            )
          case "research":
            return Effect.succeed({ task: task("working") })
          default:
            return Effect.never
        }
      },
      "tasks/get": () => Effect.succeed(task(polls++ === 0 ? "working" : "completed")),
      "tasks/result": () => Effect.succeed(textResult("report"))
    }
  }
}

const setup = (
  release: Deferred.Deferred<void>,
  extra: Layer.Layer<ApprovalPolicy.ApprovalPolicy | Approver.Approver> = Layer.empty as never,
  options: Partial<McpClient.Options> = {}
) =>
  McpClient.layer({ clientInfo, prefetch: false, server: "files", requestTimeout: "1 second", ...options }).pipe(
    Layer.provideMerge(TestServer.layer(makeServer(release))),
    Layer.provideMerge(ToolCallLog.layer({ retention: 3 })),
    Layer.provide(extra)
  )

const records = Effect.flatMap(ToolCallLog.ToolCallLog, (log) => log.records.get)
const last = Effect.map(records, (list) => list.at(-1)!)
const call = (name: string, options?: McpClient.CallToolOptions) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.callTool({ name, arguments: { path: "/a" } }, options))
const millis = (dt: DateTime.Utc | undefined) => dt === undefined ? undefined : DateTime.toEpochMillis(dt)

describe("ToolCallLog through a client", () => {
  it.effect("records completed and failed calls with result or error (tag and message only)", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        yield* call("ok")
        expect(yield* last).toMatchObject({
          server: "files",
          tool: "ok",
          arguments: { path: "/a" },
          status: "Completed",
          result: textResult("fine")
        })
        yield* call("fails")
        expect(yield* last).toMatchObject({ status: "Failed", result: { isError: true } })
        yield* Effect.flip(call("broken"))
        const broken = yield* last
        expect(broken).toMatchObject({ status: "Failed", error: { _tag: "ProtocolError", message: "backend down" } })
        expect(Object.keys(broken.error!)).toEqual(["_tag", "message"])
        const store = yield* KeyValueStore.KeyValueStore
        const stored = Option.getOrThrow(yield* store.get(`mcp-effect/tool-calls/call/${broken.id}`))
        expect(stored).not.toContain("s3cr3t")
      }).pipe(Effect.provide(setup(release)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("shows a running call with its last progress, timestamps from the Clock", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* TestClock.setTime(1_000_000)
      yield* Effect.gen(function*() {
        const fiber = yield* Effect.fork(call("slow"))
        const running = yield* eventually(Effect.map(records, (list) => list[0]?.progress !== undefined && list[0]))
        expect(running).toMatchObject({ status: "Running", progress: { progress: 1, total: 2, message: "half way" } })
        expect(millis(running.startedAt)).toBe(1_000_000)
        expect(running.endedAt).toBeUndefined()
        yield* TestClock.adjust("500 millis")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(fiber)
        const done = yield* last
        expect(done.status).toBe("Completed")
        expect(millis(done.endedAt)).toBe(1_000_500)
        expect(millis(done.updatedAt)).toBe(1_000_500)
      }).pipe(Effect.provide(setup(release)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("records timeouts, interruptions and task-augmented calls", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        const timing = yield* Effect.fork(Effect.flip(call("hangs")))
        yield* eventually(Effect.map(records, (list) => list.length === 1))
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(timing)).toMatchObject({ _tag: "RequestTimeout" })
        expect(yield* last).toMatchObject({ status: "TimedOut", error: { _tag: "RequestTimeout" } })

        const hanging = yield* Effect.fork(call("hangs", { timeout: "none" }))
        yield* eventually(Effect.map(records, (list) => list.length === 2))
        yield* Fiber.interrupt(hanging)
        expect((yield* last).status).toBe("Cancelled")

        const research = yield* Effect.fork(call("research"))
        yield* eventually(Effect.map(last, (r) => r.tool === "research" && r.taskId !== undefined))
        yield* TestClock.adjust("100 millis")
        yield* TestClock.adjust("100 millis")
        expect(yield* Fiber.join(research)).toEqual(textResult("report"))
        expect(yield* last).toMatchObject({ status: "Completed", taskId: "t1", taskStatus: "completed" })
      }).pipe(Effect.provide(setup(release)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("running the same call effect twice makes two records", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const once = client.callTool({ name: "ok" })
        yield* once
        yield* once
        const list = yield* records
        expect(list.map((r) => r.status)).toEqual(["Completed", "Completed"])
        expect(new Set(list.map((r) => r.id)).size).toBe(2)
      }).pipe(Effect.provide(setup(release)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("records a streamed call, whose events still arrive in order", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* Deferred.succeed(release, undefined)
      yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const events = yield* Stream.runCollect(client.callToolStream({ name: "slow" }))
        expect([...events].map((e) => e._tag)).toEqual(["Progress", "Result"])
        expect(yield* last).toMatchObject({
          tool: "slow",
          status: "Completed",
          progress: { progress: 1, total: 2 },
          result: textResult("slow done")
        })
      }).pipe(Effect.provide(setup(release)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("records a call awaiting approval, then its denial", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<ApprovalDecision.ApprovalDecision>()
      const approval = Layer.merge(
        ApprovalPolicy.layerMemory({ mode: "always-ask" }),
        Approver.layer(() => Deferred.await(answer))
      )
      yield* Effect.gen(function*() {
        const fiber = yield* Effect.fork(Effect.flip(call("ok")))
        const waiting = yield* eventually(Effect.map(records, (list) => list[0]))
        expect(waiting.status).toBe("AwaitingApproval")
        yield* Deferred.succeed(answer, ApprovalDecision.deny("no writes today"))
        yield* Fiber.join(fiber)
        expect(yield* last).toMatchObject({
          status: "Denied",
          error: { _tag: "ApprovalDenied", message: "tool call ok was not approved: no writes today" }
        })
      }).pipe(Effect.provide(setup(release, approval)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("a call interrupted while awaiting approval is recorded as cancelled", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const approval = Layer.merge(
        ApprovalPolicy.layerMemory({ mode: "always-ask" }),
        Approver.layer(() => Effect.never)
      )
      yield* Effect.gen(function*() {
        const fiber = yield* Effect.fork(call("ok"))
        yield* eventually(Effect.map(records, (list) => list[0]?.status === "AwaitingApproval"))
        yield* Fiber.interrupt(fiber)
        expect(yield* last).toMatchObject({ status: "Cancelled" })
        expect((yield* last).endedAt).toBeDefined()
      }).pipe(Effect.provide(setup(release, approval)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("the records stream follows a call to its end", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        const log = yield* ToolCallLog.ToolCallLog
        const seen = yield* Effect.fork(
          log.records.changes.pipe(
            Stream.map((list) => list[0]?.status),
            Stream.takeUntil((status) => status === "Completed"),
            Stream.runCollect
          )
        )
        yield* call("ok")
        const statuses = [...(yield* Fiber.join(seen))]
        expect(statuses.at(-1)).toBe("Completed")
      }).pipe(Effect.provide(setup(release)))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})

describe("ToolCallLog storage", () => {
  it.effect("persists schema-encoded records, reloads them, and keeps only the retention limit", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(5_000)
      const ids = yield* Effect.gen(function*() {
        const log = yield* ToolCallLog.ToolCallLog
        const ids: Array<string> = []
        for (const tool of ["a", "b", "c", "d"]) {
          const id = yield* log.start({ server: "s", tool, status: "Running" })
          yield* log.update(id, { status: "Completed", result: { content: [] } })
          ids.push(id)
        }
        return ids
      }).pipe(Effect.provide(ToolCallLog.layer({ retention: 3 })))
      const store = yield* KeyValueStore.KeyValueStore
      // the oldest was evicted from the store too
      expect(yield* store.has(`mcp-effect/tool-calls/call/${ids[0]}`)).toBe(false)
      const encoded = JSON.parse(Option.getOrThrow(yield* store.get(`mcp-effect/tool-calls/call/${ids[3]}`)))
      expect(encoded).toMatchObject({ tool: "d", status: "Completed", startedAt: 5_000, endedAt: 5_000 })
      const reloaded = yield* Effect.flatMap(ToolCallLog.ToolCallLog, (log) => log.records.get).pipe(
        Effect.provide(ToolCallLog.layer({ retention: 3 }))
      )
      expect(reloaded.map((r) => r.tool)).toEqual(["b", "c", "d"])
      expect(DateTime.isDateTime(reloaded[0].startedAt)).toBe(true)
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("a store that fails is logged, and the history in memory stays right", () => {
    const failure = new PlatformError.SystemError({
      reason: "Unknown",
      module: "KeyValueStore",
      method: "set",
      description: "disk full"
    })
    const broken = Layer.succeed(
      KeyValueStore.KeyValueStore,
      KeyValueStore.makeStringOnly({
        get: () => Effect.fail(failure),
        set: () => Effect.fail(failure),
        remove: () => Effect.fail(failure),
        clear: Effect.fail(failure),
        size: Effect.fail(failure)
      })
    )
    const logged: Array<string> = []
    const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message))))
    return Effect.gen(function*() {
      const log = yield* ToolCallLog.ToolCallLog
      const id = yield* log.start({ server: "s", tool: "t", status: "Running" })
      yield* log.update(id, { status: "Completed" })
      expect((yield* log.records.get).map((r) => r.status)).toEqual(["Completed"])
      expect(logged.some((line) => line.includes("could not read the records"))).toBe(true)
      expect(logged.some((line) => line.includes(`could not write record ${id}`))).toBe(true)
    }).pipe(Effect.provide(ToolCallLog.layer().pipe(Layer.provide(broken))), Effect.provide(logger))
  })

  it.effect("records.changes ends when the log's scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const log = yield* ToolCallLog.make().pipe(Effect.provide(KeyValueStore.layerMemory), Scope.extend(scope))
      const seen = yield* Effect.fork(Stream.runCollect(log.records.changes))
      yield* log.start({ server: "s", tool: "t", status: "Running" })
      yield* Scope.close(scope, Exit.void)
      const lists = yield* Fiber.join(seen)
      expect(lists.length).toBeGreaterThan(0)
    }))
})

describe("ToolCallLog on a shared store", () => {
  it.live("two logs making 20 calls each at once keep all 40 records, and each sees the other's live", () =>
    Effect.gen(function*() {
      const logOn = ToolCallLog.make({ retention: 100 })
      const [a, b] = yield* Effect.all([logOn, logOn])
      const calls = (log: ToolCallLog.Service, tool: string) =>
        Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          () =>
            Effect.flatMap(log.start({ server: "s", tool, status: "Running" }), (id) =>
              log.update(id, { status: "Completed" })),
          { concurrency: 4, discard: true }
        )
      yield* Effect.all([calls(a, "a"), calls(b, "b")], { concurrency: 2 })
      const store = yield* SharedStore.SharedStore
      expect((yield* store.collection("mcp-effect/tool-calls/call").list).length).toBe(40)
      const full = (log: ToolCallLog.Service) =>
        log.records.changes.pipe(
          Stream.filter((list) => list.length === 40 && list.every((r) => r.status === "Completed")),
          Stream.runHead,
          Effect.timeout("1 second")
        )
      yield* Effect.all([full(a), full(b)])
      // a clear in one is seen in the other
      yield* a.clear
      yield* b.records.changes.pipe(
        Stream.filter((list) => list.length === 0),
        Stream.runHead,
        Effect.timeout("1 second")
      )
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(SharedStore.layerMemory, KeyValueStore.layerMemory))))
})
