import { assert, describe, it } from "@effect/vitest"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { Backend } from "../src/internal/backend.js"
import * as internal from "../src/internal/stdioTransport.js"
import { fakeBackend } from "./fakeBackend.js"

/** A process that records what is written to its stdin; its room and its `writable` are the test's. */
const recording = (room: { has: boolean; waits: number; opened: Deferred.Deferred<void> }) => {
  const writes: Array<string> = []
  const backend = fakeBackend("stdin", [], {
    write: (line) => {
      writes.push(line)
    },
    hasRoom: () => room.has,
    writable: Effect.suspend(() => {
      room.waits++
      return Deferred.await(room.opened)
    })
  })
  return { backend, writes }
}

const connect = (backend: Backend<never>) =>
  Effect.gen(function*() {
    const { transport } = yield* internal.make({ command: "fake" }, backend)
    return Chunk.unsafeHead(yield* Effect.flatten(Stream.toPull(transport.connections)))
  })

/** Connects through `backend`, keeping the transport's `onWriteError` (a write to stdin failing closes the connection). */
const connectKeepingWriteError = (backend: Backend<never>) =>
  Effect.gen(function*() {
    const writeError: { report?: (reason: string) => void } = {}
    const connection = yield* connect((options) => {
      writeError.report = options.onWriteError
      return backend(options)
    })
    return { connection, writeError }
  })

const line = (i: number) => JSON.stringify(JsonRpc.notification("n", { i })) + "\n"

describe("StdioTransport writes", () => {
  it.scoped("messages sent in one tick reach stdin in one write, in order", () =>
    Effect.gen(function*() {
      const room = { has: true, waits: 0, opened: yield* Deferred.make<void>() }
      const { backend, writes } = recording(room)
      const connection = yield* connect(backend)
      yield* Effect.forEach(Array.from({ length: 100 }, (_, i) => i), (i) =>
        connection.send(JsonRpc.notification("n", { i })), {
        discard: true
      })
      // handed to the process at the end of the tick
      assert.deepStrictEqual(writes, [])
      yield* Effect.promise(() =>
        Promise.resolve()
      )
      assert.deepStrictEqual(writes, [Array.from({ length: 100 }, (_, i) => line(i)).join("")])
      // a lone send later is a write of its own
      yield* connection.send(JsonRpc.notification("n", { i: 100 }))
      yield* Effect.promise(() => Promise.resolve())
      assert.deepStrictEqual(writes.slice(1), [line(100)])
    }))

  it.scoped("a backend that batches its own writes gets each line at once, in order", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const backend = fakeBackend("stdin", [], {
        write: (line) => {
          writes.push(line)
        },
        hasRoom: () => true,
        writable: Effect.void,
        batchesWrites: true
      })
      const connection = yield* connect(backend)
      for (let i = 0; i < 3; i++) assert.isTrue(connection.sendNow?.(JsonRpc.notification("n", { i })))
      // no outbox in between: the lines are the backend's before the tick ends
      assert.deepStrictEqual(writes, [line(0), line(1), line(2)])
      yield* connection.send(JsonRpc.notification("n", { i: 3 }))
      assert.deepStrictEqual(writes.slice(3), [line(3)])
    }))

  it.scoped("a burst larger than a batch starts writing before the tick ends, in order", () =>
    Effect.gen(function*() {
      const room = { has: true, waits: 0, opened: yield* Deferred.make<void>() }
      const { backend, writes } = recording(room)
      const connection = yield* connect(backend)
      const n = 1000
      const writtenBefore: Array<number> = []
      for (let i = 0; i < n; i++) {
        assert.isTrue(connection.sendNow?.(JsonRpc.notification("n", { i })))
        writtenBefore.push(writes.length)
      }
      // the server gets the first lines while the burst is still being made (8 KiB at a time)
      const early = writes.length
      assert.isAbove(early, 1)
      assert.isTrue(writes.every((text) => text.length >= 8 * 1024 && text.length < 8 * 1024 + 64))
      assert.strictEqual(writtenBefore[0], 0)
      yield* Effect.promise(() => Promise.resolve())
      // the rest at the end of the tick; nothing lost, nothing reordered
      assert.strictEqual(writes.length, early + 1)
      assert.strictEqual(writes.join(""), Array.from({ length: n }, (_, i) => line(i)).join(""))
    }))

  it.scoped("senders waiting for room share one wait, and all are sent once there is room", () =>
    Effect.gen(function*() {
      const room = { has: false, waits: 0, opened: yield* Deferred.make<void>() }
      const { backend, writes } = recording(room)
      const connection = yield* connect(backend)
      assert.isFalse(connection.sendNow?.(JsonRpc.notification("n", { i: -1 })))
      const senders = yield* Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) => Effect.fork(connection.send(JsonRpc.notification("n", { i })))
      )
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      // one wait for "drain", not one per sender
      assert.strictEqual(room.waits, 1)
      assert.deepStrictEqual(writes, [])
      room.has = true
      yield* Deferred.succeed(room.opened, undefined)
      yield* Fiber.joinAll(senders)
      yield* Effect.promise(() => Promise.resolve())
      const sent = writes.join("").split("\n").filter((l) => l.length > 0)
      assert.deepStrictEqual(sent.sort(), Array.from({ length: 100 }, (_, i) => line(i).trim()).sort())
    }))

  it.scoped("a sender waiting for room fails with the connection's error once it closes", () =>
    Effect.gen(function*() {
      const room = { has: false, waits: 0, opened: yield* Deferred.make<void>() }
      const { backend, writes } = recording(room)
      const { connection, writeError } = yield* connectKeepingWriteError(backend)
      const sender = yield* Effect.fork(connection.send(JsonRpc.notification("n", { i: 0 })))
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      assert.strictEqual(room.waits, 1)
      // stdin breaks while the sender waits: the wait ends (room never comes) and the send fails, typed
      writeError.report?.("EPIPE")
      const error = yield* Effect.flip(Fiber.join(sender))
      assert.strictEqual(error._tag, "TransportError")
      assert.strictEqual(error._tag === "TransportError" && error.reason, "Write")
      assert.include(error.message, "cannot write to the server (EPIPE)")
      assert.deepStrictEqual(writes, [])
      // a later send fails at once, with no wait
      assert.strictEqual(
        (yield* Effect.flip(connection.send(JsonRpc.notification("n", { i: 1 }))))._tag,
        "TransportError"
      )
      assert.strictEqual(room.waits, 1)
    }))
})
