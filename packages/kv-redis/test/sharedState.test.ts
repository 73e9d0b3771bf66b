// The multi-process contract of shared state: real app processes on one store (a real
// redis-server on a free loopback port, or one shared directory) write at once and lose
// nothing, and each sees the other's changes within a second. Worker: fixtures/sharedWorker.ts.
import { describe, expect, it } from "@effect/vitest"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as NodeFileKeyValueStore from "@mcp-effect/hub/NodeFileKeyValueStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import * as RedisClient from "../src/RedisClient.js"
import * as RedisKeyValueStore from "../src/RedisKeyValueStore.js"
import { redisServer } from "./fixtures/redisServer.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

interface Worker {
  /** Sends a command and reads its one-line answer. */
  readonly ask: (command: string) => Effect.Effect<Record<string, unknown>>
}

/** A worker process, killed when the scope closes; each answer is one JSON line. */
const worker = (env: Record<string, string>): Effect.Effect<Worker, never, Scope.Scope> =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        // node itself (not the tsx wrapper), so that the kill below reaches the worker
        spawn(
          process.execPath,
          ["--import", "tsx", "--conditions=@mcp-effect/source", "packages/kv-redis/test/fixtures/sharedWorker.ts"],
          { cwd: root, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] }
        )
      ),
      (child) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGKILL")
        })
    )
    const answers: Array<Record<string, unknown>> = []
    const waiting: Array<(answer: Record<string, unknown>) => void> = []
    const deliver = (answer: Record<string, unknown>) => {
      const waiter = waiting.shift()
      if (waiter) waiter(answer)
      else answers.push(answer)
    }
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith("{")) deliver(JSON.parse(line))
    })
    child.once("exit", (code) => {
      for (const waiter of waiting.splice(0)) waiter({ step: "exited", code })
    })
    const next = Effect.async<Record<string, unknown>>((resume) => {
      const answer = answers.shift()
      if (answer) return resume(Effect.succeed(answer))
      waiting.push((a) => resume(Effect.succeed(a)))
    })
    expect(yield* next).toEqual({ step: "ready" })
    return { ask: (command) => Effect.zipRight(Effect.sync(() => child.stdin!.write(`${command}\n`)), next) }
  })

interface Backend {
  readonly name: string
  /** The environment of a worker on this store, and the store as the test process sees it. */
  readonly open: Effect.Effect<
    { readonly env: Record<string, string>; readonly store: SharedStore.Service },
    unknown,
    Scope.Scope
  >
}

const backends: ReadonlyArray<Backend> = [
  {
    name: "Node files (one shared directory)",
    open: Effect.gen(function*() {
      const dir = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "shared-state-")), "store")
      const context = yield* Layer.build(NodeFileKeyValueStore.layer(dir))
      return { env: { STORE: "file", DIR: dir }, store: Context.get(context, SharedStore.SharedStore) }
    })
  },
  {
    name: "Redis (a real redis-server)",
    open: Effect.gen(function*() {
      const server = yield* redisServer
      const client = yield* RedisClient.make({ url: server.url })
      const store = yield* RedisKeyValueStore.makeShared({ prefix: "shared:" }).pipe(
        Effect.provideService(RedisClient.RedisClient, client)
      )
      return { env: { STORE: "redis", REDIS_URL: server.url }, store }
    })
  }
]

describe.each(backends)("shared state across processes: $name", ({ open }) => {
  it.scopedLive(
    "two processes: 20 calls each keep 40 records; servers added at once all survive; each sees the other's changes within a second",
    () =>
      Effect.gen(function*() {
        const { env, store } = yield* open
        const [a, b] = yield* Effect.all([worker(env), worker(env)], { concurrency: 2 })

        // history: 20 calls in each process at once
        const calls = yield* Effect.all([a.ask("calls 20"), b.ask("calls 20")], { concurrency: 2 })
        expect(calls).toEqual([{ step: "calls" }, { step: "calls" }])
        expect((yield* store.collection("mcp-effect/tool-calls/call").list).length).toBe(40)
        const records = yield* Effect.all([a.ask("records 40"), b.ask("records 40")], { concurrency: 2 })
        expect(records).toMatchObject([{ ok: true, last: 40 }, { ok: true, last: 40 }])

        // registry: each process adds its own servers at once
        yield* Effect.all([
          Effect.zipRight(a.ask("add a1"), a.ask("add a2")),
          Effect.zipRight(b.ask("add b1"), b.ask("add b2"))
        ], { concurrency: 2 })
        expect((yield* store.collection("mcp-effect/hub/servers").list).map(([name]) => name)).toEqual([
          "a1",
          "a2",
          "b1",
          "b2"
        ])
        const servers = yield* Effect.all([a.ask("servers a1,a2,b1,b2"), b.ask("servers a1,a2,b1,b2")], {
          concurrency: 2
        })
        expect(servers).toMatchObject([{ ok: true }, { ok: true }])

        // live: B already waits when A adds, and sees it within a second
        const seen = yield* Effect.fork(b.ask("servers a1,a2,b1,b2,late"))
        yield* Effect.sleep("50 millis")
        yield* a.ask("add late")
        const late = yield* seen.await.pipe(Effect.flatten)
        expect(late).toMatchObject({ ok: true })
        expect(late.ms).toBeLessThan(1000)

        // approvals: an "approve always" in A lets B run the tool without asking
        expect(yield* b.ask("evaluate read")).toMatchObject({ verdict: { _tag: "Ask" } })
        yield* a.ask("remember read")
        expect(yield* b.ask("evaluate read")).toMatchObject({ verdict: { _tag: "Allow", reason: "Remembered" } })
      }),
    { timeout: 120_000 }
  )
})
