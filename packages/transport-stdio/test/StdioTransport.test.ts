import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Chunk from "effect/Chunk"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as StdioError from "../src/StdioError.js"
import * as StdioTransport from "../src/StdioTransport.js"
import { backends, fixture, isAlive, nodeServer, reader, result } from "./utils.js"

const secretName = "MCP_EFFECT_TEST_SECRET"
process.env[secretName] = "do-not-leak"
process.env.MCP_EFFECT_TEST_INHERITED = "passed-through"

for (const backend of backends) {
  /** Starts the transport and pulls its connections one by one. */
  const start = (options: StdioTransport.Options) =>
    Effect.gen(function*() {
      const { logs, transport } = yield* backend.make(options)
      const pull = yield* Stream.toPull(transport.connections)
      const next = Effect.map(pull, Chunk.unsafeHead)
      return { logs, next }
    }).pipe(Effect.provide(NodeContext.layer))

  describe(`StdioTransport (${backend.name})`, () => {
    it.scopedLive("answers requests over NDJSON", () =>
      Effect.gen(function*() {
        const { next } = yield* start(nodeServer("echo-server.mjs"))
        const connection = yield* next
        assert.strictEqual(connection.description, `stdio:${process.execPath}`)
        const rpc = yield* reader(connection)
        assert.deepStrictEqual(result(yield* rpc.call(1, "tools/list")), { echo: "tools/list" })
        yield* rpc.send(JsonRpc.notification("notifications/initialized"))
        assert.deepStrictEqual(result(yield* rpc.call("two" as never, "ping")), { echo: "ping" })
      }))

    it.scopedLive("frames partial chunks, CRLF and UTF-8 split across chunks", () =>
      Effect.gen(function*() {
        const { next } = yield* start(nodeServer("echo-server.mjs"))
        const rpc = yield* reader(yield* next)
        const data = Buffer.from(
          `{"jsonrpc":"2.0","method":"a","params":{"text":"héllo ✓ 🎉"}}\r\n\n` +
            `{"jsonrpc":"2.0","method":"b","params":{}}\n`
        )
        const emoji = data.indexOf(Buffer.from("🎉"))
        const cuts = [5, emoji + 2, data.indexOf("\r") + 1, data.length - 10, data.length]
        const chunks = cuts.map((end, i) => data.subarray(i === 0 ? 0 : cuts[i - 1], end).toString("base64"))
        yield* rpc.send(JsonRpc.request(1, "raw", { chunks }))
        assert.deepStrictEqual(yield* rpc.next, Option.some(JsonRpc.notification("a", { text: "héllo ✓ 🎉" })))
        assert.deepStrictEqual(yield* rpc.next, Option.some(JsonRpc.notification("b", {})))
        assert.deepStrictEqual(yield* rpc.next, Option.some(JsonRpc.success(1, { written: 5 })))
      }))

    it.scopedLive("answers 600 requests, sent in bursts and one at a time, each once and in order", () =>
      Effect.gen(function*() {
        // bursts (many lines in one write, many answers in one stdout chunk) and lone sends (the writer
        // waits for input between them): none lost, none twice, none reordered
        const { next } = yield* start(nodeServer("echo-server.mjs"))
        const rpc = yield* reader(yield* next)
        const ids: Array<unknown> = []
        const collect = (n: number) =>
          Effect.gen(function*() {
            for (let i = 0; i < n; i++) {
              const value = Option.getOrThrow(yield* rpc.next)
              ids.push("id" in value ? value.id : value)
            }
          })
        let id = 0
        for (let round = 0; round < 3; round++) {
          const burst = Array.from({ length: 150 }, () => JsonRpc.request(++id, `m${id}`))
          yield* Effect.forEach(burst, rpc.send, { discard: true })
          yield* collect(150)
          for (let i = 0; i < 50; i++) {
            yield* rpc.send(JsonRpc.request(++id, `m${id}`))
            yield* collect(1)
          }
        }
        assert.deepStrictEqual(ids, Array.from({ length: 600 }, (_, i) => i + 1))
      }))

    it.scopedLive("turns garbage into Malformed values and keeps going", () =>
      Effect.gen(function*() {
        const { next } = yield* start(nodeServer("noisy.mjs", "100"))
        const rpc = yield* reader(yield* next)
        const reasons: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const value = Option.getOrThrow(yield* rpc.next)
          reasons.push(JsonRpc.isMalformed(value) ? value.error.reason : (value as JsonRpc.Notification).method)
        }
        assert.deepStrictEqual(reasons, ["Json", "Json", "big"])
        assert.deepStrictEqual(yield* rpc.next, Option.some(JsonRpc.notification("after")))
        assert.deepStrictEqual(result(yield* rpc.call(7, "still-there")), { echo: "still-there" })
      }))

    it.scopedLive("ends the connection at once on a line over the limit, in bounded memory", () =>
      Effect.gen(function*() {
        const { next } = yield* start({
          ...nodeServer("echo-server.mjs"),
          shutdown: { stdinGraceMillis: 100, termGraceMillis: 100 }
        })
        const rpc = yield* reader(yield* next)
        const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
        const usedBefore = used()
        // answered with a 64 MiB line: the call fails as soon as the limit (16 MiB) is passed
        const error = yield* Effect.flip(rpc.call(1, "big", { bytes: 64 * 1024 * 1024 }))
        assert.instanceOf(error, McpError.TransportError)
        assert.strictEqual((error as McpError.TransportError).reason, "Read")
        assert.include(error.message, "longer than the limit of 16777216 bytes")
        // at most the 16 MiB limit was ever held, never the whole line
        assert.isBelow(used() - usedBefore, 48 * 1024 * 1024)
        const sendError = yield* Effect.flip(rpc.send(JsonRpc.request(2, "ping")))
        assert.strictEqual((sendError as McpError.TransportError).reason, "Write")
      }))

    it.scopedLive("reads into the inbound buffer as stdout arrives, and a line over the limit ends the read from its callback", () =>
      Effect.gen(function*() {
        const { next } = yield* start({ ...nodeServer("echo-server.mjs"), maxMessageBytes: 1024 })
        const connection = yield* next
        const received = yield* Queue.unbounded<JsonRpc.Incoming>()
        const ended = yield* Deferred.make<McpTransport.ConnectionError | undefined>()
        const stop = connection.inbound.listen((messages) => {
          for (const message of messages) received.unsafeOffer(message)
        }, (error) => Deferred.unsafeDone(ended, Exit.succeed(error)))
        yield* Effect.addFinalizer(() => Effect.sync(stop))
        yield* connection.send(JsonRpc.request(1, "ping"))
        assert.deepStrictEqual(yield* Queue.take(received), JsonRpc.success(1, { echo: "ping" }))
        yield* connection.send(JsonRpc.request(2, "big", { bytes: 4096 }))
        const error = yield* Deferred.await(ended)
        assert.instanceOf(error, McpError.TransportError)
        assert.strictEqual((error as McpError.TransportError).reason, "Read")
        assert.include(error!.message, "longer than the limit of 1024 bytes")
        // the session reads the phase: what was in flight is not sent again to bring the same answer back
        assert.strictEqual((error as McpError.TransportError).phase, "message-size")
        assert.strictEqual(yield* Queue.size(received), 0)
      }))

    it.scopedLive("fails the connection with the exit code and stderr tail of a server that dies at start", () =>
      Effect.gen(function*() {
        const { next } = yield* start({
          command: process.execPath,
          args: ["-e", "console.error('starting'); console.error('boom: MISSING_TOKEN is not set'); process.exit(3)"]
        })
        const rpc = yield* reader(yield* next)
        const error = (yield* Effect.flip(rpc.next)) as McpError.TransportError
        assert.instanceOf(error, McpError.TransportError)
        assert.strictEqual(error.reason, "Closed")
        assert.include(error.message, "exited with code 3")
        assert.include(error.message, "boom: MISSING_TOKEN is not set")
        assert.instanceOf(error.cause, StdioError.ServerExited)
        const exited = error.cause as StdioError.ServerExited
        assert.strictEqual(exited.exitCode, 3)
        assert.isUndefined(exited.signal)
        assert.deepStrictEqual(exited.stderrTail, ["starting", "boom: MISSING_TOKEN is not set"])
      }))

    it.scopedLive("masks the values of its env and of the given secrets in the stderr it quotes and publishes", () =>
      Effect.gen(function*() {
        const token = "stdio-env-secret-0123456789"
        const extra = "expanded-arg-secret-0123456789"
        const { logs, next } = yield* start({
          command: process.execPath,
          args: [
            "-e",
            "console.error('token is ' + process.env.API_TOKEN); console.error('arg ' + process.argv[1]); process.exit(2)",
            extra
          ],
          env: { API_TOKEN: token, SHORT: "1" },
          secrets: [extra]
        })
        const rpc = yield* reader(yield* next)
        const error = (yield* Effect.flip(rpc.next)) as McpError.TransportError
        const exited = error.cause as StdioError.ServerExited
        assert.deepStrictEqual(exited.stderrTail, ["token is <redacted>", "arg <redacted>"])
        assert.include(error.message, "token is <redacted>")
        const published = yield* Effect.scoped(Effect.flatMap(logs.subscribe, Queue.takeAll))
        assert.deepStrictEqual(Chunk.toReadonlyArray(published), ["token is <redacted>", "arg <redacted>"])
        for (const text of [error.message, exited.message, ...exited.stderrTail]) {
          assert.notInclude(text, token)
          assert.notInclude(text, extra)
        }
      }))

    it.scopedLive("neutralises the stderr it quotes and publishes: no escape sequence, CR or bidi control survives", () =>
      Effect.gen(function*() {
        const { logs, next } = yield* start({
          command: process.execPath,
          args: [
            "-e",
            "console.error('\\x1b[2K\\rApprove? [y] \\u202eevil\\u0007'); process.exit(2)"
          ]
        })
        const rpc = yield* reader(yield* next)
        const error = (yield* Effect.flip(rpc.next)) as McpError.TransportError
        const exited = error.cause as StdioError.ServerExited
        assert.deepStrictEqual(exited.stderrTail, [" Approve? [y] evil"])
        const published = yield* Effect.scoped(Effect.flatMap(logs.subscribe, Queue.takeAll))
        assert.deepStrictEqual(Chunk.toReadonlyArray(published), [" Approve? [y] evil"])
        // the message puts the tail on lines of its own: only its own line breaks
        // eslint-disable-next-line no-control-regex -- the check is that no control character is left
        assert.notMatch(error.message, /[\u0000-\u0009\u000b-\u001f\u007f\u202e]/)
      }))

    it.scopedLive("names the signal that killed the server, and keeps only the end of its stderr", () =>
      Effect.gen(function*() {
        const { next } = yield* start({
          command: process.execPath,
          args: [
            "-e",
            "for (let i = 0; i < 100; i++) console.error('line ' + i);" +
            "console.error('x'.repeat(10000));" +
            "process.kill(process.pid, 'SIGKILL')"
          ]
        })
        const rpc = yield* reader(yield* next)
        const error = (yield* Effect.flip(rpc.next)) as McpError.TransportError
        assert.include(error.message, "exited on SIGKILL")
        const exited = error.cause as StdioError.ServerExited
        assert.strictEqual(exited.signal, "SIGKILL")
        assert.isUndefined(exited.exitCode)
        assert.isAtMost(exited.stderrTail.length, 20)
        assert.isAtMost(exited.stderrTail.join("").length, 4096)
        // the newest lines are kept; the long last line keeps its end
        const last = exited.stderrTail[exited.stderrTail.length - 1]
        assert.isTrue(last.endsWith("xxxx") && last.length <= 4096)
      }))

    it.scopedLive("passes only the whitelisted, inherited and configured environment", () =>
      Effect.gen(function*() {
        const { next } = yield* start({
          ...nodeServer("echo-server.mjs"),
          env: { CONFIGURED: "yes", HOME: "/configured/home" },
          inheritEnv: ["MCP_EFFECT_TEST_INHERITED"]
        })
        const rpc = yield* reader(yield* next)
        const env: Record<string, string> = result(yield* rpc.call(1, "env")).env
        assert.isUndefined(env[secretName])
        assert.strictEqual(env.CONFIGURED, "yes")
        assert.strictEqual(env.HOME, "/configured/home")
        assert.strictEqual(env.MCP_EFFECT_TEST_INHERITED, "passed-through")
        assert.strictEqual(env.PATH, process.env.PATH)
        const allowed = new Set([...StdioTransport.defaultInheritedEnv, "CONFIGURED", "MCP_EFFECT_TEST_INHERITED"])
        assert.deepStrictEqual(Object.keys(env).filter((name) => !allowed.has(name)), [])
      }))

    it.scopedLive("publishes stderr lines across restarts, never as errors", () =>
      Effect.gen(function*() {
        const { logs, next } = yield* start({
          ...nodeServer("echo-server.mjs"),
          reconnect: { schedule: Schedule.spaced("10 millis") }
        })
        const lines = yield* logs.subscribe
        const first = yield* reader(yield* next)
        yield* first.call(1, "stderr", { text: "hello from stderr" })
        assert.strictEqual(yield* Queue.take(lines), "hello from stderr")
        yield* first.send(JsonRpc.request(2, "crash"))
        assert.strictEqual((yield* Effect.flip(first.next))._tag, "TransportError")
        assert.strictEqual(yield* Queue.take(lines), "crashing on request")
        const second = yield* reader(yield* next)
        yield* second.call(1, "stderr", { text: "second process" })
        assert.strictEqual(yield* Queue.take(lines), "second process")
      }))

    it.scopedLive("restarts a crashed server as a new process after the schedule's delay", () =>
      Effect.gen(function*() {
        const { next } = yield* start({
          ...nodeServer("echo-server.mjs"),
          reconnect: { schedule: Schedule.spaced("300 millis") }
        })
        const first = yield* reader(yield* next)
        const firstPid: number = result(yield* first.call(1, "pid")).pid
        yield* first.send(JsonRpc.request(2, "crash"))
        const exited = yield* Effect.flip(first.next)
        assert.strictEqual((exited as McpError.TransportError).reason, "Closed")
        // the link is gone: a write fails with a typed error
        const error = yield* Effect.flip(first.send(JsonRpc.request(3, "ping")))
        assert.strictEqual(error._tag, "TransportError")
        assert.strictEqual((error as McpError.TransportError).reason, "Write")
        const crashedAt = Date.now()
        const second = yield* reader(yield* next)
        assert.isAtLeast(Date.now() - crashedAt, 290)
        const secondPid: number = result(yield* second.call(1, "pid")).pid
        assert.notStrictEqual(secondPid, firstPid)
        assert.isFalse(isAlive(firstPid))
      }))

    it.scopedLive("fails fast with a Connect error when the command does not exist", () =>
      Effect.gen(function*() {
        const { next } = yield* start({ command: "mcp-effect-no-such-command", env: { TOKEN: "secret-value" } })
        const error = yield* Effect.flip(next)
        assert.isTrue(Option.isSome(error))
        const failure = Option.getOrThrow(error)
        assert.instanceOf(failure, McpError.TransportError)
        assert.strictEqual(failure.reason, "Connect")
        assert.include(failure.message, "mcp-effect-no-such-command")
        assert.include(failure.message, "command not found")
        assert.notInclude(failure.message, "secret-value")
      }))

    it.scopedLive("fails fast with a Connect error when the working directory does not exist", () =>
      Effect.gen(function*() {
        const { next } = yield* start({ ...nodeServer("echo-server.mjs"), cwd: fixture("no-such-directory") })
        const failure = Option.getOrThrow(yield* Effect.flip(next))
        assert.strictEqual(failure.reason, "Connect")
        assert.include(failure.message, "no-such-directory")
      }))

    it.scopedLive("layerConfig reads the options from Config and provides both services", () =>
      Effect.gen(function*() {
        const { connections } = yield* McpTransport.McpTransport
        const { subscribe } = yield* StdioTransport.StdioLogs
        const lines = yield* subscribe
        const connection = Chunk.unsafeHead(yield* Effect.flatMap(Stream.toPull(connections), (pull) => pull))
        assert.strictEqual(connection.description, `stdio:${process.execPath}`)
        const rpc = yield* reader(connection)
        yield* rpc.call(1, "stderr", { text: "configured" })
        assert.strictEqual(yield* Queue.take(lines), "configured")
      }).pipe(
        Effect.provide(Layer.provide(
          backend.layerConfig({
            command: Config.string("SERVER_COMMAND"),
            args: Config.array(Config.string(), "SERVER_ARGS")
          }),
          NodeContext.layer
        )),
        Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([["SERVER_COMMAND", process.execPath], ["SERVER_ARGS", fixture("echo-server.mjs")]])
        ))
      ))
  })
}
