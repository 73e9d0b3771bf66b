import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as StdioTransport from "../src/StdioTransport.js"
import { awaitGone, backends, fixture, isAlive, nodeServer, reader } from "./utils.js"

const pidOf = (value: Option.Option<JsonRpc.Incoming>): number => {
  const message = Option.getOrThrow(value) as JsonRpc.Notification
  return message.params!.pid as number
}

for (const backend of backends) {
  /**
   * Runs one connection of the server: `use` sees the announced pids while the
   * connection is open; returns them with how long closing took.
   */
  const oneConnection = (options: StdioTransport.Options, announcements: number) =>
    Effect.gen(function*() {
      const { transport } = yield* backend.make(options)
      let closingStarted = 0
      const pids = yield* transport.connections.pipe(
        Stream.take(1),
        Stream.mapEffect((connection) =>
          Effect.scoped(Effect.gen(function*() {
            const rpc = yield* reader(connection)
            const pids: Array<number> = []
            for (let i = 0; i < announcements; i++) pids.push(pidOf(yield* rpc.next))
            return pids
          })).pipe(Effect.ensuring(Effect.sync(() => closingStarted = Date.now())))
        ),
        Stream.runCollect
      )
      return { pids: [...pids][0], closeMillis: Date.now() - closingStarted }
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

  const grace = { stdinGraceMillis: 300, termGraceMillis: 300 }
  const margin = 1_500

  describe(`StdioTransport shutdown (${backend.name})`, () => {
    it.live("a server that exits when stdin closes is not signalled", () =>
      Effect.gen(function*() {
        const { closeMillis, pids } = yield* oneConnection({
          command: "sh",
          args: [fixture("announce-cat.sh")],
          shutdown: { stdinGraceMillis: 5_000, termGraceMillis: 5_000 }
        }, 1)
        assert.isBelow(closeMillis, 2_000)
        assert.isFalse(isAlive(pids[0]))
      }))

    it.live("a server that ignores stdin closing gets SIGTERM after the stdin grace", () =>
      Effect.gen(function*() {
        const { closeMillis, pids } = yield* oneConnection({
          ...nodeServer("stubborn.mjs", "--term-ok"),
          shutdown: { stdinGraceMillis: 300, termGraceMillis: 10_000 }
        }, 1)
        assert.isAtLeast(closeMillis, 290)
        assert.isBelow(closeMillis, 300 + margin)
        assert.isFalse(isAlive(pids[0]))
      }))

    it.live("a server that ignores SIGTERM is killed within both graces", () =>
      Effect.gen(function*() {
        const { closeMillis, pids } = yield* oneConnection({ ...nodeServer("stubborn.mjs"), shutdown: grace }, 1)
        assert.isAtLeast(closeMillis, 590)
        assert.isBelow(closeMillis, 600 + margin)
        assert.isFalse(isAlive(pids[0]))
      }))

    it.live("a wrapper (like npx) leaves no grandchild behind", () =>
      Effect.gen(function*() {
        const { closeMillis, pids } = yield* oneConnection({ ...nodeServer("wrapper.mjs"), shutdown: grace }, 2)
        assert.strictEqual(pids.length, 2)
        assert.isBelow(closeMillis, 600 + margin)
        for (const pid of pids) {
          // the orphaned grandchild is reaped by init, not by us: allow it a moment
          assert.isTrue(yield* awaitGone(pid, 2_000), `process ${pid} is still running`)
        }
      }))

    it.live("200 connect/close cycles leave no process", () =>
      Effect.gen(function*() {
        const { transport } = yield* backend.make({
          command: "sh",
          args: [fixture("announce-cat.sh")],
          reconnect: { schedule: undefined, healthyAfterMillis: 0 }
        })
        const pids: Array<number> = []
        for (let i = 0; i < 200; i++) {
          yield* transport.connections.pipe(
            Stream.take(1),
            Stream.mapEffect((connection) =>
              Effect.scoped(Effect.flatMap(reader(connection), (rpc) => rpc.next)).pipe(
                Effect.map((value) => pids.push(pidOf(value)))
              )
            ),
            Stream.runDrain
          )
        }
        assert.strictEqual(new Set(pids).size, 200)
        assert.deepStrictEqual(pids.filter(isAlive), [])
      }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 60_000)
  })
}
