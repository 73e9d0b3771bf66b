/**
 * A small workload to profile our stdio hot path and idle heap (see
 * "Profile" in bench/README.md):
 *
 * ```
 * npx tsx --conditions=@mcp-effect/source bench/profile.ts calls --cpu-out .cache/ours.cpuprofile
 * npx tsx --expose-gc --conditions=@mcp-effect/source bench/profile.ts idle --heap-out .cache/idle.heapprofile
 * npx tsx bench/profileSummary.ts .cache/ours.cpuprofile   # or .cache/idle.heapprofile
 * ```
 *
 * bench/README.md ("Profile") shows how to run it on the compiled `dist` instead, so the
 * profile names our modules and lines as they are (tsx rewrites them).
 * ```
 *
 * - `--transport http` (any mode): the session is `HttpTransport` (on `NodeHttpClient.layerUndici`)
 *   against the bench's HTTP fixture instead of `NodeStdioTransport` (for `idle`, one fixture
 *   process holds every session).
 * - `calls [--calls N] [--concurrency C] [--client ours|sdk|raw] [--backend node|command] [--steps]`: one
 *   `NodeStdioTransport` session, a warm-up of N calls, then N `tools/call` of `echo`, C at a time
 *   (default 1: sequential, what `stdio latency` measures). `--client sdk` runs the official SDK
 *   client instead, `--client raw` the raw NDJSON loop (`clients/raw.ts`), for comparison;
 *   with `--transport http` every client makes its N calls in bursts of C (C started at once, the
 *   next burst when all are answered: what `http throughput` measures), and `--client raw` is the
 *   raw undici loop (`clients/rawHttp.ts`);
 *   `--backend command` runs ours on `StdioTransport` over the platform's `CommandExecutor`
 *   (`NodeContext.layer`) instead. `--steps` prints the Effect run-loop steps per call of the timed
 *   batch (a count that does not depend on the load). For instructions per call, run it under
 *   `valgrind --tool=callgrind` with two values of N (see bench/README.md, "Counts").
 *   For ours, `--steps` also prints the steps of the batch's own fibers alone (a counting scheduler
 *   on the batch) and the fibers it started (a supervisor), per call. Every fiber started from the
 *   batch's fibers inherits both, so a transport's fibers made from the caller's (a send) count
 *   too; fibers started before (the session's own, e.g. a stdout reader) do not.
 * - `idle [--sessions N] [--client ours|sdk] [--heap-out FILE] [--snapshot-out PREFIX]`: opens N idle sessions (after one
 *   warm-up session), prints the `heapUsed` growth per session (and per session of the second half
 *   alone, without what the first sessions cost once), and profiles what they hold (`HeapProfiler`
 *   sampling, live objects only). `--snapshot-out` writes heap snapshots before, half way and after
 *   (`PREFIX-before.heapsnapshot`, ...): their diff, grouped by constructor and retainer, names
 *   what each session holds. `--client sdk` (here and in `closed`) opens the SDK's stdio sessions.
 * - `closed [--sessions N] [--snapshot-out PREFIX]`: opens N sessions (after one warm-up session),
 *   closes them and prints what is still held per session; a leak keeps its size per session as N
 *   grows, one-off costs (compiled code) shrink. `--client sdk --transport http`: the SDK client.
 * - `inflight [--calls N] [--heap-out FILE] [--snapshot-out PREFIX]`: N pending `hold` calls on one
 *   session (after a warm-up round of as many), profiled the same way once the server holds them
 *   all (or heap snapshots before and while held); prints the `heapUsed` growth per call.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { McpClient, type McpTransport } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Scheduler from "effect/Scheduler"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
import { readFileSync, writeFileSync } from "node:fs"
import * as Inspector from "node:inspector/promises"
import { parseArgs } from "node:util"
import { writeHeapSnapshot } from "node:v8"
import * as Raw from "./clients/raw.js"
import * as RawHttp from "./clients/rawHttp.js"
import * as Sdk from "./clients/sdk.js"
import { serverEnv, startHttpServer, stdioServer } from "./servers.js"
import { checkEcho, countOf, echoCall } from "./subject.js"

const { positionals, values: flags } = parseArgs({
  allowPositionals: true,
  options: {
    calls: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "1" },
    sessions: { type: "string", default: "20" },
    client: { type: "string", default: "ours" },
    backend: { type: "string", default: "node" },
    transport: { type: "string", default: "stdio" },
    "cpu-out": { type: "string" },
    "heap-out": { type: "string" },
    "alloc-out": { type: "string" },
    steps: { type: "boolean", default: false },
    "snapshot-out": { type: "string" }
  }
})

/**
 * Runs the timed batch of `calls` calls and prints the process's CPU time per call (user + system,
 * steadier than wall time on a busy machine). With `--cpu-out FILE`, a CPU profile of the timed
 * batch alone (not start-up, not the warm-up), written as a `.cpuprofile`; with `--alloc-out FILE`
 * instead, a sampling heap profile (every 1 KiB on average) of everything the timed batch
 * allocated, collected objects included: bytes allocated per call, by function (`profileSummary.ts`
 * reads it as it reads a `.heapprofile`). Unlike time, that count hardly depends on the load.
 */
const profiled = async <A>(calls: number, run: () => Promise<A>): Promise<A> => {
  const cpu = process.cpuUsage()
  const server = childrenCpuMicros()
  const result = flags.steps ? await countedSteps(calls, run) : await profiledRun(run)
  const { system, user } = process.cpuUsage(cpu)
  const served = httpServer === undefined
    ? ""
    : `, HTTP server ${((childrenCpuMicros() - server) / calls).toFixed(1)} µs CPU/call`
  process.stderr.write(`${flags.client}: ${((user + system) / calls).toFixed(1)} µs CPU/call${served}\n`)
  return result
}

/**
 * The CPU time (user + system, µs) the child processes of this one have used so far (Linux
 * `/proc`, 10 ms ticks): with `--transport http`, the fixture server's work for this client.
 */
const childrenCpuMicros = (): number => {
  try {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim().split(/\s+/)
    let ticks = 0
    for (const pid of children.filter((p) => p !== "")) {
      // fields after the command's closing parenthesis: utime and stime are the 12th and 13th
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      ticks += Number(fields[11]) + Number(fields[12])
    }
    return ticks * 10_000
  } catch {
    return Number.NaN
  }
}

/**
 * `--steps`: how many steps Effect's run loop takes in the timed batch, per call (every fiber of
 * the process). The run loop asks its scheduler once per step whether to yield, so the default
 * scheduler's `shouldYield`, wrapped, counts them. A count, not a time: it does not depend on the
 * load, and a change to the call path shows in it exactly.
 */
const countedSteps = async <A>(calls: number, run: () => Promise<A>): Promise<A> => {
  const scheduler = Scheduler.defaultScheduler
  const shouldYield = scheduler.shouldYield
  let steps = 0
  scheduler.shouldYield = (fiber) => {
    steps++
    return shouldYield.call(scheduler, fiber)
  }
  try {
    return await run()
  } finally {
    scheduler.shouldYield = shouldYield
    process.stderr.write(`${flags.client}: ${(steps / calls).toFixed(1)} Effect steps/call\n`)
  }
}

const profiledRun = async <A>(run: () => Promise<A>): Promise<A> => {
  const allocations = flags["alloc-out"]
  if (allocations !== undefined) {
    const session = new Inspector.Session()
    session.connect()
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
    const result = await run()
    const { profile } = await session.post("HeapProfiler.stopSampling")
    writeFileSync(allocations, JSON.stringify(profile))
    session.disconnect()
    return result
  }
  const out = flags["cpu-out"]
  if (out === undefined) return run()
  const session = new Inspector.Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
  const result = await run()
  const { profile } = await session.post("Profiler.stop")
  writeFileSync(out, JSON.stringify(profile))
  session.disconnect()
  return result
}

if (flags.transport !== "stdio" && flags.transport !== "http") {
  throw new Error(`--transport must be stdio or http, got ${flags.transport}`)
}
/** `--transport http`: the bench's HTTP fixture (SSE answers) in its own process. */
const httpServer = flags.transport === "http" ? await startHttpServer(false) : undefined

if (flags.backend !== "node" && flags.backend !== "command") {
  throw new Error(`--backend must be node or command, got ${flags.backend}`)
}
const stdioOptions = { command: stdioServer.command, args: stdioServer.args, env: serverEnv }
const transport: Layer.Layer<McpTransport.McpTransport, never, HttpClient.HttpClient> = httpServer !== undefined ?
  Layer.orDie(HttpTransport.layer({ url: httpServer.url })) :
  flags.backend === "command" ?
  Layer.provide(StdioTransport.layer(stdioOptions), NodeContext.layer) :
  NodeStdioTransport.layer(stdioOptions)

const session = McpClient.make({ clientInfo: { name: "bench-profile", version: "1.0.0" }, prefetch: false }).pipe(
  Effect.tap((client) => client.initialized),
  Effect.provide(transport)
)

/**
 * What `idle` and `closed` open: with `--client sdk`, the official SDK client over stdio (each with
 * its own server process) or HTTP (`--transport http`), so that a heap diff can set what one of its
 * sessions holds beside ours.
 */
const idleSession: Effect.Effect<unknown, unknown, Scope.Scope | HttpClient.HttpClient> = flags.client === "sdk" ?
  Effect.acquireRelease(
    Effect.promise(() => httpServer === undefined ? Sdk.openStdio(stdioServer) : Sdk.openHttp(httpServer.url)),
    (client) => Effect.promise(() => client.close())
  ) :
  session

const calls = Effect.gen(function*() {
  const client = yield* session
  checkEcho("ours", yield* client.callTool(echoCall))
  const n = Number(flags.calls)
  const concurrency = Number(flags.concurrency)
  const batch = httpServer === undefined ?
    Effect.forEach(Array.from({ length: n }), () => client.callTool(echoCall), { concurrency, discard: true }) :
    Effect.forEach(
      bursts(n, concurrency),
      (size) =>
        Effect.forEach(Array.from({ length: size }), () => client.callTool(echoCall), {
          concurrency: "unbounded",
          discard: true
        }),
      { discard: true }
    )
  yield* batch
  const runtime = yield* Effect.runtime<never>()
  const counted = flags.steps ? counting(batch) : undefined
  const micros = yield* Effect.promise(() =>
    profiled(n, async () => {
      const start = performance.now()
      await Runtime.runPromise(runtime, counted?.effect ?? batch)
      return (performance.now() - start) * 1000 / n
    })
  )
  yield* Effect.sync(() => process.stderr.write(`ours: ${micros.toFixed(1)} µs/call\n`))
  if (counted !== undefined) {
    yield* Effect.sync(() =>
      process.stderr.write(
        `ours: ${(counted.ops() / n).toFixed(1)} Effect steps/call on the batch's fibers, ` +
          `${(counted.fibers() / n).toFixed(2)} fibers/call\n`
      )
    )
  }
})

/** `effect` run with a scheduler and a supervisor that count its steps and the fibers it starts (`--steps`). */
const counting = <A, E>(effect: Effect.Effect<A, E>) => {
  let ops = 0
  let fibers = 0
  const scheduler: Scheduler.Scheduler = {
    shouldYield: (fiber) => {
      ops++
      return Scheduler.defaultScheduler.shouldYield(fiber)
    },
    scheduleTask: (task, priority, fiber) => Scheduler.defaultScheduler.scheduleTask(task, priority, fiber)
  }
  class Starts extends Supervisor.AbstractSupervisor<void> {
    readonly value = Effect.void
    override onStart() {
      fibers++
    }
  }
  return {
    effect: effect.pipe(Effect.withScheduler(scheduler), Effect.supervised(new Starts())),
    ops: () => ops,
    fibers: () => fibers
  }
}

const gc = () => (globalThis as { gc?: () => void }).gc?.()

/** The used heap after a full GC, with a heap snapshot of it when asked (`--snapshot-out PREFIX`). */
const settled = (name: string) =>
  Effect.sync(() => {
    gc()
    gc()
    const snapshot = flags["snapshot-out"]
    if (snapshot !== undefined) writeHeapSnapshot(`${snapshot}-${name}.heapsnapshot`)
    return process.memoryUsage().heapUsed
  }).pipe(Effect.delay("500 millis"))

/**
 * With `--heap-out FILE`, a sampling heap profile (every 1 KiB on average) of what the N sessions
 * opened after one warm-up session still hold once they are all open, after a full GC.
 */
const idle = Effect.gen(function*() {
  yield* Effect.scoped(idleSession)
  const out = flags["heap-out"]
  const inspector = new Inspector.Session()
  if (out !== undefined) {
    inspector.connect()
    yield* Effect.promise(() => inspector.post("HeapProfiler.startSampling", { samplingInterval: 1024 }))
  }
  const sessions = Number(flags.sessions)
  const half = Math.floor(sessions / 2)
  const before = yield* settled("before")
  for (let i = 0; i < half; i++) yield* idleSession
  const middle = yield* settled("half")
  for (let i = half; i < sessions; i++) yield* idleSession
  const after = yield* settled("after")
  if (out !== undefined) {
    const { profile } = yield* Effect.promise(() => inspector.post("HeapProfiler.stopSampling"))
    writeFileSync(out, JSON.stringify(profile))
    inspector.disconnect()
  }
  // the second half leaves out what the first sessions cost once (compiled code, lazily built state)
  const kib = (bytes: number, n: number) => (bytes / n / 1024).toFixed(1)
  yield* Effect.sync(() =>
    process.stderr.write(
      `${sessions} sessions open: ${kib(after - before, sessions)} KiB per session, ` +
        `${kib(after - middle, sessions - half)} KiB per session of the second half\n`
    )
  )
})

/**
 * What N sessions still hold once they are closed again (a leak grows with N): opens N sessions
 * (after one warm-up session), closes them, and prints the `heapUsed` growth per session over the
 * heap before them; `--snapshot-out PREFIX` writes heap snapshots before and after.
 */
const closed = Effect.gen(function*() {
  yield* Effect.scoped(idleSession)
  const sessions = Number(flags.sessions)
  const before = yield* settled("before")
  const scopes: Array<Scope.CloseableScope> = []
  for (let i = 0; i < sessions; i++) {
    const scope = yield* Scope.make()
    yield* Scope.extend(idleSession, scope)
    scopes.push(scope)
  }
  for (const scope of scopes) yield* Scope.close(scope, Exit.void)
  scopes.length = 0
  const after = yield* settled("after")
  yield* Effect.sync(() =>
    process.stderr.write(
      `${sessions} sessions closed: ${((after - before) / sessions / 1024).toFixed(1)} KiB per session still held\n`
    )
  )
})

/**
 * With `--heap-out FILE`, a sampling heap profile of what `--calls` pending `hold` calls on one
 * session hold, once the server holds them all, after a full GC; then they are released.
 */
const inflight = Effect.gen(function*() {
  const client = yield* session
  const n = Number(flags.calls)
  const pending = Effect.map(client.callTool({ name: "pending" }), countOf)
  yield* Effect.forEach(Array.from({ length: 10 }), () => client.callTool(echoCall), { discard: true })
  const out = flags["heap-out"]
  const snapshot = flags["snapshot-out"]
  const inspector = new Inspector.Session()
  /** Holds `n` calls and measures them; profiled (sampling, or snapshots before and while held) when `profile`. */
  const round = (profile: boolean) =>
    Effect.gen(function*() {
      gc()
      gc()
      if (profile && snapshot !== undefined) writeHeapSnapshot(`${snapshot}-before.heapsnapshot`)
      if (profile && out !== undefined) {
        inspector.connect()
        yield* Effect.promise(() => inspector.post("HeapProfiler.startSampling", { samplingInterval: 1024 }))
      }
      const before = process.memoryUsage().heapUsed
      const held = yield* Effect.fork(
        Effect.forEach(Array.from({ length: n }), () => client.callTool({ name: "hold" }), {
          concurrency: "unbounded",
          discard: true
        })
      )
      while ((yield* pending) < n) yield* Effect.sleep("10 millis")
      gc()
      gc()
      const perCall = (process.memoryUsage().heapUsed - before) / n / 1024
      if (profile && snapshot !== undefined) writeHeapSnapshot(`${snapshot}-held.heapsnapshot`)
      if (profile && out !== undefined) {
        const { profile } = yield* Effect.promise(() => inspector.post("HeapProfiler.stopSampling"))
        writeFileSync(out, JSON.stringify(profile))
        inspector.disconnect()
      }
      yield* client.callTool({ name: "release" })
      yield* Fiber.join(held)
      return perCall
    })
  // a warm-up round first, as the bench does
  yield* round(false)
  const perCall = yield* round(true)
  yield* Effect.sync(() => process.stderr.write(`${n} calls held: ${perCall.toFixed(2)} KiB per call\n`))
})

/** `n` calls in bursts of `size` (the last one smaller when `size` does not divide `n`). */
const bursts = (n: number, size: number): Array<number> =>
  Array.from({ length: Math.ceil(n / size) }, (_, i) => Math.min(size, n - i * size))

/** `n` calls in bursts of `size`, each burst started at once and awaited whole. */
const inBursts = async (n: number, size: number, call: () => Promise<unknown>) => {
  for (const burst of bursts(n, size)) await Promise.all(Array.from({ length: burst }, call))
}

/**
 * The same workload with the SDK client: `C` loops of `N / C` sequential calls each (stdio), or
 * bursts of `C` (HTTP).
 */
const sdkCalls = async () => {
  const client = httpServer === undefined ? await Sdk.openStdio(stdioServer) : await Sdk.openHttp(httpServer.url)
  checkEcho("sdk", await client.callTool(echoCall))
  const n = Number(flags.calls)
  const concurrency = Number(flags.concurrency)
  const loop = async () => {
    for (let i = 0; i < n / concurrency; i++) await client.callTool(echoCall)
  }
  const batch = () =>
    httpServer === undefined ?
      Promise.all(Array.from({ length: concurrency }, loop)) :
      inBursts(n, concurrency, () => client.callTool(echoCall))
  await batch()
  const micros = await profiled(n, async () => {
    const start = performance.now()
    await batch()
    return (performance.now() - start) * 1000 / n
  })
  process.stderr.write(`sdk: ${micros.toFixed(1)} µs/call\n`)
  await client.close()
}

/** `closed` with the SDK client (HTTP only): the same sessions, opened and closed the same way. */
const sdkClosed = async () => {
  if (httpServer === undefined) throw new Error("closed --client sdk needs --transport http")
  const settle = () => Effect.runPromise(settled("before"))
  const open = () => Sdk.openHttp(httpServer.url)
  await (await open()).close()
  const sessions = Number(flags.sessions)
  const before = await settle()
  const clients = []
  for (let i = 0; i < sessions; i++) clients.push(await open())
  for (const client of clients) await client.close()
  clients.length = 0
  const after = await Effect.runPromise(settled("after"))
  process.stderr.write(
    `sdk: ${sessions} sessions closed: ${((after - before) / sessions / 1024).toFixed(1)} KiB per session still held\n`
  )
}

/**
 * The floor under both clients: the raw NDJSON loop (stdio, sequential only), or the raw undici
 * loop (HTTP, in bursts of `C`).
 */
const rawCalls = async () => {
  if (httpServer === undefined && Number(flags.concurrency) !== 1) {
    throw new Error("--client raw: stdio is sequential only")
  }
  const raw = httpServer === undefined ? await Raw.start(stdioServer) : await RawHttp.startHttp(httpServer.url)
  const n = Number(flags.calls)
  const concurrency = Number(flags.concurrency)
  const batch = async () => {
    if (httpServer === undefined) return raw.sequential(n)
    const start = performance.now()
    for (const burst of bursts(n, concurrency)) await raw.concurrent(burst)
    return performance.now() - start
  }
  await batch()
  const millis = await profiled(n, batch)
  process.stderr.write(`raw: ${(millis * 1000 / n).toFixed(1)} µs/call\n`)
  await raw.close()
}

const mode = positionals[0] ?? "calls"
if (mode !== "calls" && mode !== "idle" && mode !== "closed" && mode !== "inflight") {
  throw new Error(`mode must be calls, idle, closed or inflight, got ${mode}`)
}
const run = flags.client === "sdk" && mode === "calls" ?
  sdkCalls() :
  flags.client === "sdk" && mode === "closed" ?
  sdkClosed() :
  flags.client === "raw" && mode === "calls" ?
  rawCalls() :
  Effect.runPromise(
    Effect.scoped(mode === "calls" ? calls : mode === "idle" ? idle : mode === "closed" ? closed : inflight).pipe(
      // the HTTP client outlives every session (a layer provided to one session would close with it)
      Effect.provide(NodeHttpClient.layerUndici)
    )
  )
run.then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
