// Continuations across real app processes on one real Redis, against the official SDK v2 server
// (2026-07-28) whose `book` tool asks for input: a process killed while its elicitation is pending
// leaves the call to another, which answers it once; two processes answering at once: one wins.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { resource } from "../../transport-http/test/fixtures/harness.js"
import { startSdkV2Server } from "../../transport-http/test/fixtures/sdkV2Server.js"
import { appProcess } from "./fixtures/appProcesses.js"
import { redisServer } from "./fixtures/redisServer.js"

const script = "packages/kv-redis/test/fixtures/continuationProcess.ts"

describe("continuations shared by app processes on one Redis", () => {
  it.scopedLive(
    "A is killed while its elicitation is pending; B lists it and answers; the server completes it once",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const server = yield* resource(() => startSdkV2Server())
        const env = { REDIS_URL: redis.url, MCP_URL: server.url }

        // both start at once (a process takes seconds to start on a loaded machine); B answers after A is dead
        const a = yield* appProcess({ ...env, ROLE: "call" }, script)
        const b = yield* appProcess({ ...env, ROLE: "answer", NAME: "Ada" }, script)
        expect(yield* a.next).toEqual({ step: "started" })
        expect(yield* a.next).toEqual({ step: "asked" })
        yield* a.kill

        expect(yield* b.next).toEqual({ step: "started" })
        const pending = yield* b.next
        expect(pending).toMatchObject({
          step: "pending",
          continuations: [{
            server: "bookings",
            method: "tools/call",
            params: { name: "book", arguments: { table: "7" } },
            requestState: "book:7",
            identity: "alice",
            state: "Pending",
            round: 1
          }]
        })
        yield* b.send("go")
        expect(yield* b.next).toMatchObject({
          step: "answered",
          ok: true,
          result: { content: [{ type: "text", text: "booked 7 for Ada" }] }
        })
        expect(server.booked).toEqual([{ table: "7", name: "Ada", requestState: "book:7" }])
        // A's history record (Running when it died) is the one B completed: updated, not duplicated
        yield* b.send("history")
        const history = yield* b.next
        expect(history).toMatchObject({
          step: "history",
          records: [{ status: "Completed", result: { content: [{ type: "text", text: "booked 7 for Ada" }] } }]
        })
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "two processes answer at once: one answer reaches the server, the other gets ContinuationAlreadyAnswered",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const server = yield* resource(() => startSdkV2Server())
        const env = { REDIS_URL: redis.url, MCP_URL: server.url }

        const a = yield* appProcess({ ...env, ROLE: "call" }, script)
        const b = yield* appProcess({ ...env, ROLE: "answer", NAME: "Bea" }, script)
        const c = yield* appProcess({ ...env, ROLE: "answer", NAME: "Cy" }, script)
        expect(yield* a.next).toEqual({ step: "started" })
        expect(yield* a.next).toEqual({ step: "asked" })
        yield* Effect.all([b.next, c.next], { concurrency: 2 })
        const [pendingB, pendingC] = yield* Effect.all([b.next, c.next], { concurrency: 2 })
        expect(pendingB).toMatchObject({ step: "pending" })
        expect((pendingB.continuations as Array<{ id: string }>)[0]!.id).toBe(
          (pendingC.continuations as Array<{ id: string }>)[0]!.id
        )
        yield* Effect.all([b.send("go"), c.send("go")])
        const answers = yield* Effect.all([b.next, c.next], { concurrency: 2 })
        const won = answers.filter((answer) => answer.ok === true)
        const lost = answers.filter((answer) => answer.ok === false)
        expect(won).toHaveLength(1)
        expect(lost).toEqual([{ step: "answered", ok: false, error: "ContinuationAlreadyAnswered" }])
        expect(server.booked).toHaveLength(1)
        // A, still alive, had its own prompt interrupted and completes with the winner's result
        expect(yield* a.next).toEqual({ step: "called", result: won[0]!.result })
      }),
    { timeout: 120_000 }
  )
})
