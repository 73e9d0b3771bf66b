/**
 * `node bench/start.mjs bench/breakdown.ts` (compiled, as `npm run bench` runs), or `tsx --conditions=@mcp-effect/source bench/breakdown.ts`:
 * where our client's time per sequential `tools/call` goes, layer by layer.
 * Each row peels one layer off, so differences between rows are the cost of
 * that layer. Client CPU per call (`process.cpuUsage`, all threads of this
 * process) is steadier than wall time on a busy machine.
 *
 * Rows (median of `--repeats` interleaved rounds of `--calls` calls):
 * - `client/stdio`: `McpClient.callTool` over `StdioTransport` (what the benchmark measures)
 * - `client/node-stdio x100`, `client/stdio x100`: the same, `--concurrency` calls at a time (in batches)
 * - `client/stdio no-timeout`: the same with `requestTimeout: "none"` (no per-request watchdog)
 * - `session/stdio`: `ClientSession.request("tools/call")`, skipping McpClient, tasks and result decoding
 * - `transport/stdio`: one `StdioTransport` connection with a minimal id -> Deferred correlation
 * - `client/loopback`, `... no-timeout`, `session/loopback`, `... no-timeout`: the same over an
 *   in-process transport answering at once (no process, no I/O): the engine alone
 * - `client/push-loopback` (`xN`), `session/push-loopback`: the engine on the path stdio takes
 *   (`sendNow` out, the inbound buffer back in a later task), still with no process and no I/O
 * - `sdk/stdio`, `raw/stdio` (`xN`): the official SDK client and the hand-written NDJSON loop, for scale
 * - `floor/forEach xN`: `Effect.forEach` over waits resumed together, with no client: what driving
 *   N concurrent calls the Effect way costs before any client work (compare with `client/... xN`)
 * - `client/http`, `client/http xN`, `session/http`, `sdk/http`, `sdk/http xN`, `raw/http`: the same
 *   over Streamable HTTP (the bench's fixture server, SSE answers; `--http-response json` for JSON
 *   answers), ours on `NodeHttpClient.layerUndici`; the HTTP fixture's CPU is not counted
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { JsonRpc, McpClient, McpTransport } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { parseArgs } from "node:util"
import * as Raw from "./clients/raw.js"
import * as RawHttp from "./clients/rawHttp.js"
import * as Sdk from "./clients/sdk.js"
import { median } from "./measure.js"
import { type HttpServer, serverEnv, startHttpServer, stdioServer } from "./servers.js"
import { echoCall, echoText, type Subject } from "./subject.js"

const { values: flags } = parseArgs({
  options: {
    calls: { type: "string", default: "3000" },
    repeats: { type: "string", default: "3" },
    concurrency: { type: "string", default: "100" },
    only: { type: "string" },
    "http-response": { type: "string", default: "sse" }
  }
})
// the SDK's HTTP client adds an abort listener per concurrent request to one signal and Node warns each time
process.removeAllListeners("warning")
process.on("warning", (warning) => {
  if (warning.name !== "MaxListenersExceededWarning") process.stderr.write(`${warning}\n`)
})

const calls = Number(flags.calls)
const repeats = Number(flags.repeats)
const concurrency = Number(flags.concurrency)

/** Runs `n` sequential calls; resolves with the elapsed milliseconds. */
type Loop = (n: number) => Promise<number>

interface Row {
  readonly name: string
  readonly loop: Loop
}

const runtime = ManagedRuntime.make(Layer.merge(NodeContext.layer, NodeHttpClient.layerUndici))
const scope = Effect.runSync(Scope.make())
type Platform = NodeContext.NodeContext | HttpClient.HttpClient
const inScope = <A, E>(effect: Effect.Effect<A, E, Scope.Scope | Platform>): Promise<A> =>
  runtime.runPromise(Scope.extend(effect, scope))

const timedLoop = <E>(once: Effect.Effect<unknown, E>): Loop => (n) =>
  runtime.runPromise(Effect.gen(function*() {
    const start = performance.now()
    for (let i = 0; i < n; i++) yield* once
    return performance.now() - start
  }))

const stdio = StdioTransport.layer({ command: stdioServer.command, args: stdioServer.args, env: serverEnv })
const nodeStdio = NodeStdioTransport.layer({ command: stdioServer.command, args: stdioServer.args, env: serverEnv })

/** `n` calls, `concurrency` at a time (in batches), as one Effect; resolves with the elapsed milliseconds. */
const batchedLoop = <E>(once: Effect.Effect<unknown, E>): Loop => (n) =>
  runtime.runPromise(Effect.gen(function*() {
    const start = performance.now()
    for (let done = 0; done < n; done += concurrency) {
      yield* Effect.forEach(Array.from({ length: Math.min(concurrency, n - done) }), () => once, {
        concurrency: "unbounded",
        discard: true
      })
    }
    return performance.now() - start
  }))

/**
 * The floor of an Effect app's concurrency, with no client: `Effect.forEach` (unbounded, in
 * batches of `--concurrency`) over `Effect.async` waits that are resumed together from one
 * `setImmediate`, as a read callback resumes the callers of a chunk's answers. What every
 * `xN` row of ours pays before any work of its own: a fiber per element, forked and joined.
 */
const forEachFloor = (): Loop => {
  let waiting: Array<(done: Effect.Effect<void>) => void> = []
  const resumeAll = () => {
    const now = waiting
    waiting = []
    for (const resume of now) resume(Effect.void)
  }
  return batchedLoop(Effect.async<void>((resume) => {
    if (waiting.length === 0) setImmediate(resumeAll)
    waiting.push(resume)
  }))
}

/** The same batches for a promise client. */
const batchedPromises = (concurrent: (n: number) => Promise<number>): Loop => async (n) => {
  const start = performance.now()
  for (let done = 0; done < n; done += concurrency) await concurrent(Math.min(concurrency, n - done))
  return performance.now() - start
}

/** The in-process server's answer to a request, as the client reads it off a wire (through JSON). */
const answer = (message: JsonRpc.Request): Array<JsonRpc.Incoming> => {
  const result = message.method === "initialize" ?
    { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "loopback", version: "1" } } :
    message.method === "tools/list" ?
    { tools: [{ name: "echo", inputSchema: { type: "object" } }] } :
    { content: [{ type: "text", text: echoText }] }
  return JsonRpc.decode(JSON.stringify(JsonRpc.success(message.id, result)))
}

/** An in-process transport whose server answers every request at once, in the send itself. */
const loopback = Layer.succeed(McpTransport.McpTransport, {
  connections: Stream.concat(
    Stream.sync((): McpTransport.Connection => {
      const inbound = McpTransport.makeInboundBuffer(1024)
      return {
        inbound,
        send: (message) =>
          Effect.sync(() => {
            if (!JsonRpc.isRequest(message)) return
            inbound.offerNow(answer(message))
          }),
        description: "loopback"
      }
    }),
    Stream.never
  )
})

/**
 * The same server on the path stdio takes: requests go out through `sendNow`, and the answers
 * of one tick come back together into the inbound buffer in a later task (as a read callback would).
 */
const pushLoopback = Layer.succeed(McpTransport.McpTransport, {
  connections: Stream.concat(
    Stream.sync((): McpTransport.Connection => {
      const inbound = McpTransport.makeInboundBuffer(1024)
      let answers: Array<JsonRpc.Incoming> = []
      const flush = () => {
        const ready = answers
        answers = []
        inbound.offerNow(ready)
      }
      const sendNow = (message: JsonRpc.Message) => {
        if (JsonRpc.isRequest(message)) {
          if (answers.length === 0) setImmediate(flush)
          for (const incoming of answer(message)) answers.push(incoming)
        }
        return true
      }
      return {
        inbound,
        send: (message) => Effect.sync(() => sendNow(message)),
        sendNow,
        description: "push-loopback"
      }
    }),
    Stream.never
  )
})

const client = async (
  transport: Layer.Layer<McpTransport.McpTransport, never, Platform>,
  options: Partial<McpClient.Options>,
  via: "client" | "session" | "batched"
): Promise<Loop> => {
  const mcp = await inScope(
    McpClient.make({ clientInfo: { name: "bench-breakdown", version: "1.0.0" }, prefetch: false, ...options }).pipe(
      Effect.tap((mcp) => mcp.initialized),
      Effect.provide(transport)
    )
  )
  return via === "client" ?
    timedLoop(Effect.suspend(() => mcp.callTool(echoCall))) :
    via === "batched" ?
    batchedLoop(Effect.suspend(() => mcp.callTool(echoCall))) :
    timedLoop(Effect.suspend(() => mcp.session.request("tools/call", echoCall)))
}

/** The stdio transport with just enough JSON-RPC on top: ids and a Deferred per request. */
const transportOnly = async (): Promise<Loop> => {
  const connection = await inScope(
    Effect.gen(function*() {
      const transport = yield* McpTransport.McpTransport
      const pull = yield* Stream.toPull(transport.connections)
      return Chunk.unsafeHead(yield* pull)
    }).pipe(Effect.provide(stdio))
  )
  const waiting = new Map<JsonRpc.RequestId, Deferred.Deferred<unknown>>()
  connection.inbound.listen((messages) => {
    for (const incoming of messages) {
      if (JsonRpc.isMalformed(incoming) || !JsonRpc.isResponse(incoming) || incoming.id === null) continue
      const deferred = waiting.get(incoming.id)
      waiting.delete(incoming.id)
      if (deferred !== undefined) Deferred.unsafeDone(deferred, Exit.succeed(incoming))
    }
  }, () => {})
  let nextId = 1
  const request = (method: string, params: Record<string, unknown>) =>
    Effect.suspend(() => {
      const id = nextId++
      const deferred = Deferred.unsafeMake<unknown>(FiberId.none)
      waiting.set(id, deferred)
      return Effect.zipRight(connection.send(JsonRpc.request(id, method, params)), Deferred.await(deferred))
    })
  await runtime.runPromise(Effect.zipRight(
    request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench-breakdown", version: "1.0.0" }
    }),
    connection.send(JsonRpc.notification("notifications/initialized"))
  ))
  return timedLoop(request("tools/call", echoCall))
}

/** Starts the HTTP fixture once, for the first HTTP row that needs it. */
let httpServer: Promise<HttpServer> | undefined
const httpUrl = async () => (await (httpServer ??= startHttpServer(flags["http-response"] === "json"))).url
const http = async () => Layer.orDie(HttpTransport.layer({ url: await httpUrl() }))

const main = async () => {
  const closers: Array<() => Promise<void>> = []
  const started = async (start: Promise<Subject>, loop: (subject: Subject) => Loop): Promise<Loop> => {
    const subject = await start
    closers.push(subject.close)
    return loop(subject)
  }
  const all: Array<[string, () => Promise<Loop>]> = [
    ["client/node-stdio", () => client(nodeStdio, {}, "client")],
    [`client/node-stdio x${concurrency}`, () => client(nodeStdio, {}, "batched")],
    ["client/stdio", () => client(stdio, {}, "client")],
    [`client/stdio x${concurrency}`, () => client(stdio, {}, "batched")],
    ["client/stdio no-timeout", () => client(stdio, { requestTimeout: "none" }, "client")],
    ["session/stdio", () => client(stdio, {}, "session")],
    ["transport/stdio", transportOnly],
    ["client/loopback", () => client(loopback, {}, "client")],
    ["client/loopback no-timeout", () => client(loopback, { requestTimeout: "none" }, "client")],
    ["session/loopback", () => client(loopback, {}, "session")],
    ["session/loopback no-timeout", () => client(loopback, { requestTimeout: "none" }, "session")],
    ["client/push-loopback", () => client(pushLoopback, {}, "client")],
    [`client/push-loopback x${concurrency}`, () => client(pushLoopback, {}, "batched")],
    ["session/push-loopback", () => client(pushLoopback, {}, "session")],
    ["sdk/stdio", () => started(Sdk.startStdio(stdioServer), (sdk) => sdk.sequential)],
    [`sdk/stdio x${concurrency}`, () => started(Sdk.startStdio(stdioServer), (sdk) => batchedPromises(sdk.concurrent))],
    ["raw/stdio", () => started(Raw.start(stdioServer), (raw) => raw.sequential)],
    [`raw/stdio x${concurrency}`, () => started(Raw.start(stdioServer), (raw) => batchedPromises(raw.concurrent))],
    [`floor/forEach x${concurrency}`, async () => forEachFloor()],
    ["client/http", async () => client(await http(), {}, "client")],
    [`client/http x${concurrency}`, async () => client(await http(), {}, "batched")],
    ["session/http", async () => client(await http(), {}, "session")],
    ["sdk/http", async () => started(Sdk.startHttp(await httpUrl()), (sdk) => sdk.sequential)],
    [
      `sdk/http x${concurrency}`,
      async () => started(Sdk.startHttp(await httpUrl()), (sdk) => batchedPromises(sdk.concurrent))
    ],
    ["raw/http", async () => started(RawHttp.startHttp(await httpUrl()), (raw) => raw.sequential)]
  ]
  const rows: Array<Row> = []
  for (const [name, make] of all) {
    if (flags.only === undefined || flags.only.split(",").some((part) => name.includes(part))) {
      rows.push({ name, loop: await make() })
    }
  }
  const wall = new Map<string, Array<number>>(rows.map((row) => [row.name, []]))
  const cpu = new Map<string, Array<number>>(rows.map((row) => [row.name, []]))
  for (const row of rows) await row.loop(Math.min(1000, calls))
  for (let round = 0; round < repeats; round++) {
    process.stderr.write(`round ${round + 1}/${repeats}\n`)
    for (const row of rows) {
      const before = process.cpuUsage()
      const millis = await row.loop(calls)
      const used = process.cpuUsage(before)
      wall.get(row.name)!.push((millis * 1000) / calls)
      cpu.get(row.name)!.push((used.user + used.system) / calls)
    }
  }
  console.log(`${"µs per call".padEnd(28)} ${"wall".padStart(8)} ${"cpu".padStart(8)}`)
  for (const row of rows) {
    const w = median(wall.get(row.name)!).toFixed(1).padStart(8)
    const c = median(cpu.get(row.name)!).toFixed(1).padStart(8)
    console.log(`${row.name.padEnd(28)} ${w} ${c}`)
  }
  for (const close of closers) await close()
  await runtime.runPromise(Scope.close(scope, Exit.void))
  await runtime.dispose()
  if (httpServer !== undefined) await (await httpServer).close()
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(String(error).split("\n").slice(0, 8).join("\n"))
    process.exit(1)
  }
)
