// Durable task handles across real processes on one real Redis: a process killed (SIGKILL) in the
// middle of a task-augmented call leaves the task to another, which resumes it by id and gets the
// result; the history keeps one record for the call, completed; two processes cancelling at once send
// one `tasks/cancel`; an unknown task id is a typed error. Both eras: 2025-11-25 tasks (`tasks/get`, then
// `tasks/result`) and the 2026-07-28 tasks extension (a task handle, `tasks/get` carrying the result).
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { redisServer } from "./fixtures/redisServer.js"
import { scriptProcess } from "./fixtures/scriptProcess.js"
import { type Era, taskServerOf } from "./fixtures/taskServer.js"

const script = "packages/kv-redis/test/fixtures/taskProcess.ts"

const started = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const app = yield* scriptProcess(script, env)
    expect(yield* app.next("ready")).toEqual({ step: "ready" })
    yield* app.send("go")
    expect(yield* app.next("connected")).toEqual({ step: "connected", status: "Connected" })
    return app
  })

describe("durable tasks across processes on one Redis", () => {
  it.scopedLive.each<Era>(["2025-11-25", "2026-07-28"])(
    "%s: a task survives its process: another resumes it by id, one history record, one cancel",
    (era) =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const server = yield* taskServerOf(era)
        const env = { REDIS_URL: redis.url, MCP_URL: server.url }
        const [a, b, c] = yield* Effect.all([started(env), started(env), started(env)], { concurrency: 3 })

        // A starts the call; its task record is in Redis, for B to see
        yield* a.send("call")
        expect(yield* a.next("task")).toEqual({ step: "task", taskId: "task-1" })
        yield* b.send("tasks")
        expect(yield* b.next("tasks")).toEqual({
          step: "tasks",
          tasks: [{ taskId: "task-1", tool: "research", status: "working", history: true }]
        })

        // A dies in the middle of the task; B follows it, and gets the result once the server has it
        yield* a.kill
        const polled = server.received.filter((m) => m === "tasks/get task-1").length
        yield* b.send("resume task-1")
        yield* Effect.repeat(
          Effect.sync(() => server.received.filter((m) => m === "tasks/get task-1").length),
          { until: (n) => n > polled + 1, schedule: Schedule.spaced("20 millis") }
        )
        server.complete("task-1")
        const resumed = yield* b.next("resumed")
        expect(resumed.result).toEqual({ pages: 12 })
        expect((resumed.statuses as Array<string>).at(0)).toBe("working")
        expect((resumed.statuses as Array<string>).slice(-2)).toEqual(["completed", "Result"])

        // one record for the call, completed by B; the task record is gone
        yield* b.send("history")
        const { records } = yield* b.next("history")
        expect(records).toEqual([
          { id: expect.any(String), taskId: "task-1", status: "Completed", taskStatus: "completed" }
        ])
        yield* b.send("tasks")
        expect(yield* b.next("tasks")).toEqual({ step: "tasks", tasks: [] })

        // B starts another call; B and C cancel it at once: one tasks/cancel reaches the server
        yield* b.send("call")
        expect(yield* b.next("task")).toEqual({ step: "task", taskId: "task-2" })
        yield* Effect.all([b.send("cancel task-2"), c.send("cancel task-2")])
        const [fromB, fromC] = yield* Effect.all([b.next("cancelled"), c.next("cancelled")], { concurrency: 2 })
        expect([fromB.status, fromC.status]).toContain("cancelled")
        expect(server.received.filter((m) => m === "tasks/cancel task-2")).toEqual(["tasks/cancel task-2"])
        expect(yield* b.next("call-ended")).toEqual({ step: "call-ended", error: "RequestCancelled" })
        // C follows B's history live (Redis pub/sub)
        const history = Effect.zipRight(c.send("history"), c.next("history")).pipe(
          Effect.map((report) =>
            (report.records as Array<{ taskId?: string; status: string }>).map((r) => [r.taskId, r.status])
          )
        )
        const settled = yield* Effect.repeat(Effect.delay(history, "50 millis"), {
          until: (records) => records.length === 2 && records[1]![1] !== "Running",
          times: 100
        })
        expect(settled).toEqual([["task-1", "Completed"], ["task-2", "Cancelled"]])

        // each era's own wire: 2025 reads the result with tasks/result; 2026 has no initialize and no tasks/result
        if (era === "2026-07-28") {
          expect(server.received.filter((m) => m === "initialize" || m.startsWith("tasks/result"))).toEqual([])
        } else {
          expect(server.received).toContain("tasks/result task-1")
        }

        // a task the server does not know
        yield* c.send("resume task-99")
        expect(yield* c.next("resumed")).toEqual({ step: "resumed", error: "TaskNotFound" })
        yield* Effect.all([b.send("exit"), c.send("exit")])
      }),
    { timeout: 60_000 }
  )
})
