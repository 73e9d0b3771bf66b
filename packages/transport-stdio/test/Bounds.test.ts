import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import type { Backend } from "../src/internal/backend.js"
import * as Stderr from "../src/internal/stderr.js"
import * as internal from "../src/internal/stdioTransport.js"
import { fakePid } from "./fakeBackend.js"
import { backends, nodeServer, reader, result } from "./utils.js"

setFlagsFromString("--expose-gc")
const gc: () => void = runInNewContext("gc")

/** Heap in use after full collections. */
const settledHeap = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const encoder = new TextEncoder()
const lines = (from: number, count: number): Uint8Array =>
  encoder.encode(
    Array.from({ length: count }, (_, i) => JSON.stringify(JsonRpc.notification("n", { i: from + i })) + "\n").join("")
  )

describe("StdioTransport bounds", () => {
  it.scoped("the stderr hub keeps at most 64 lines for replay and 1024 per subscriber", () =>
    Effect.gen(function*() {
      const hub = Stderr.makeLogHub()
      const idle = yield* hub.subscribe
      const reading = yield* hub.subscribe
      for (let i = 0; i < 100_000; i++) {
        yield* hub.publish(`line ${i}`)
        if (i % 100 === 99) yield* Queue.takeAll(reading)
      }
      assert.deepStrictEqual(hub.retained(), { replay: 64, subscribers: [1024, 0] })
      // a slow reader keeps the newest lines
      assert.strictEqual(yield* Queue.take(idle), "line 98976")
      // a new subscriber gets the last 64 lines first, in order
      const late = yield* hub.subscribe
      const replayed = Chunk.toReadonlyArray(yield* Queue.takeAll(late))
      assert.deepStrictEqual(replayed, Array.from({ length: 64 }, (_, i) => `line ${99_936 + i}`))
      yield* hub.shutdown
      assert.isTrue(yield* Queue.isShutdown(idle))
    }))

  it.scoped("messages read before the session listens fill the inbound buffer, and stdout pauses until it listens", () =>
    Effect.gen(function*() {
      const deliver = yield* Deferred.make<(bytes: Uint8Array) => void>()
      const flow: Array<string> = []
      const backend: Backend<never> = () =>
        Effect.succeed({
          pid: fakePid,
          write: () => {},
          hasRoom: () => true,
          writable: Effect.void,
          endInput: Effect.void,
          readStdout: (onBytes) => Effect.zipRight(Deferred.succeed(deliver, onBytes), Effect.never),
          pauseStdout: () => flow.push("pause"),
          resumeStdout: () => flow.push("resume"),
          readStderr: () => Effect.void,
          onExit: (onExit) => Effect.sync(() => onExit({ _tag: "Code", code: 0 })),
          // already exited, so closing the connection runs through the ladder at once
          exited: Effect.succeed({ _tag: "Code", code: 0 }),
          isRunning: Effect.succeed(false),
          kill: () => Effect.void
        })
      const { transport } = yield* internal.make({ command: "fake", incomingCapacity: 256 }, backend)
      const connection = Chunk.unsafeHead(yield* Effect.flatten(Stream.toPull(transport.connections)))
      const onBytes = yield* Deferred.await(deliver)
      onBytes(lines(0, 255))
      // a batch is taken whole while fewer than the capacity wait
      onBytes(lines(255, 45))
      assert.deepStrictEqual(flow, [])
      onBytes(lines(300, 10))
      assert.deepStrictEqual(flow, ["pause"])
      const taken: Array<JsonRpc.Incoming> = []
      connection.inbound.listen((messages) => {
        for (const message of messages) taken.push(message)
      }, () => {})
      assert.strictEqual(taken.length, 300)
      // the held batch goes in from a fiber of the connection's own
      for (let i = 0; i < 100 && flow.length < 2; i++) yield* Effect.yieldNow()
      assert.strictEqual(taken.length, 310)
      assert.deepStrictEqual(taken[309], JsonRpc.notification("n", { i: 309 }))
      assert.deepStrictEqual(flow, ["pause", "resume"])
    }))
})

for (const backend of backends) {
  describe(`StdioTransport bounds (${backend.name})`, () => {
    it.scopedLive("a subscriber to the stderr lines does not retain them (100k lines)", () =>
      Effect.gen(function*() {
        const { logs, transport } = yield* backend.make(nodeServer("stderr-flood.mjs", "100000"))
        const seen = yield* Deferred.make<number>()
        let count = 0
        yield* Stream.runForEach(logs.lines, (line) =>
          Effect.suspend(() => {
            count++
            return line === "last" ? Deferred.succeed(seen, count) : Effect.void
          })).pipe(Effect.forkScoped)
        const before = settledHeap()
        const pull = yield* Stream.toPull(transport.connections)
        yield* pull
        assert.strictEqual(yield* Deferred.await(seen), 100_001)
        // with the subscription still open: 100k lines of 100 bytes would be over 10 MB
        const growth = settledHeap() - before
        assert.isBelow(growth, 4 * 1024 * 1024, `heap grew by ${growth} bytes`)
      }).pipe(Effect.provide(NodeContext.layer)))

    it.scopedLive("sends wait while the server does not read its stdin, and nothing is lost", () =>
      Effect.gen(function*() {
        const { transport } = yield* backend.make(nodeServer("slow-reader.mjs"))
        const pull = yield* Stream.toPull(transport.connections)
        const connection = Chunk.unsafeHead(yield* pull)
        const rpc = yield* reader(connection)
        const message = Option.getOrThrow(yield* rpc.next) as JsonRpc.Notification
        const pid = message.params!.pid as number
        // with room, a send completes at once: the session may send inline
        assert.isTrue(connection.sendNow?.(JsonRpc.notification("n", { payload: "first" })))
        const payload = "x".repeat(8 * 1024)
        let sent = 0
        const sender = yield* Effect.fork(
          Effect.forEach(
            Array.from({ length: 1000 }),
            () => Effect.zipRight(rpc.send(JsonRpc.notification("n", { payload })), Effect.sync(() => sent++)),
            { discard: true }
          )
        )
        // without backpressure all 8 MB are buffered at once and the sender is done at once
        assert.isTrue(Option.isNone(yield* Effect.timeoutOption(Fiber.await(sender), "1 second")))
        // the pipe (64 KiB on Linux), the high-water mark (64 KiB) and the stream stages in between
        assert.isBelow(sent * payload.length, 512 * 1024, `${sent} messages were accepted`)
        // past the high-water mark it sends nothing at once: the session sends from a fiber of its own
        assert.isFalse(connection.sendNow?.(JsonRpc.notification("n", { payload: "refused" })))
        process.kill(pid, "SIGUSR1")
        yield* Fiber.join(sender)
        // the refused message was not sent
        assert.deepStrictEqual(result(yield* rpc.call(1, "last")), { count: 1002 })
      }).pipe(Effect.provide(NodeContext.layer)))
  })
}
