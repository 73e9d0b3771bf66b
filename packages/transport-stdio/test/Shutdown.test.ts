import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as StdioTransport from "../src/StdioTransport.js"
import { awaitGone, backends, fixture, isAlive, nodeServer, reader } from "./utils.js"

// Each rung with a real process, without timing assertions: the exact
// timing of the ladder is asserted on the TestClock in ShutdownLadder.test.ts.

const pidOf = (value: Option.Option<JsonRpc.Incoming>): number => {
  const message = Option.getOrThrow(value) as JsonRpc.Notification
  return message.params!.pid as number
}

/** A temporary file the stubborn fixture records what happens to it in. */
const recording = Effect.acquireRelease(
  Effect.sync(() => {
    const directory = mkdtempSync(join(tmpdir(), "mcp-stdio-"))
    const file = join(directory, "events")
    return { file, events: () => readFileSync(file, "utf8").trim().split("\n"), directory }
  }),
  ({ directory }) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
)

const grace = { stdinGraceMillis: 200, termGraceMillis: 200 }

// the ladder warns when it needs SIGKILL: expected here, and asserted in ShutdownLadder.test.ts
const quiet = Logger.remove(Logger.defaultLogger)

for (const backend of backends) {
  /** Runs one connection of the server and closes it; returns the pids it announced. */
  const oneConnection = (options: StdioTransport.Options, announcements: number) =>
    Effect.gen(function*() {
      const { transport } = yield* backend.make(options)
      const pids = yield* transport.connections.pipe(
        Stream.take(1),
        Stream.mapEffect((connection) =>
          Effect.scoped(Effect.gen(function*() {
            const rpc = yield* reader(connection)
            const pids: Array<number> = []
            for (let i = 0; i < announcements; i++) pids.push(pidOf(yield* rpc.next))
            return pids
          }))
        ),
        Stream.runCollect
      )
      return [...pids][0]
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer), Effect.provide(quiet))

  describe(`StdioTransport shutdown (${backend.name})`, () => {
    it.scopedLive("a server that exits when stdin closes is not signalled", () =>
      Effect.gen(function*() {
        const { events, file } = yield* recording
        const [pid] = yield* oneConnection({
          ...nodeServer("stubborn.mjs", "--exit-on-stdin", "--record", file),
          shutdown: { stdinGraceMillis: 10_000, termGraceMillis: 10_000 }
        }, 1)
        assert.isFalse(isAlive(pid))
        assert.deepStrictEqual(events(), ["stdin-end"])
      }))

    it.scopedLive("a server that ignores stdin closing is stopped by SIGTERM", () =>
      Effect.gen(function*() {
        const { events, file } = yield* recording
        const [pid] = yield* oneConnection({
          ...nodeServer("stubborn.mjs", "--term-ok", "--record", file),
          shutdown: { stdinGraceMillis: 200, termGraceMillis: 10_000 }
        }, 1)
        assert.isFalse(isAlive(pid))
        assert.deepStrictEqual(events(), ["stdin-end", "SIGTERM"])
      }))

    it.scopedLive("a server that ignores SIGTERM is killed", () =>
      Effect.gen(function*() {
        const { events, file } = yield* recording
        const [pid] = yield* oneConnection({ ...nodeServer("stubborn.mjs", "--record", file), shutdown: grace }, 1)
        assert.isFalse(isAlive(pid))
        assert.deepStrictEqual(events(), ["stdin-end", "SIGTERM"])
      }))

    it.live("a wrapper (like npx) leaves no grandchild behind", () =>
      Effect.gen(function*() {
        const pids = yield* oneConnection({ ...nodeServer("wrapper.mjs"), shutdown: grace }, 2)
        assert.strictEqual(pids.length, 2)
        for (const pid of pids) {
          // the orphaned grandchild is reaped by init, not by us: allow it a moment
          assert.isTrue(yield* awaitGone(pid, 5_000), `process ${pid} is still running`)
        }
      }))

    // finding descendants outside the process group reads /proc: Linux only
    it.live.skipIf(process.platform !== "linux")(
      "a grandchild that left the process group (setsid) is stopped",
      () =>
        Effect.gen(function*() {
          const [server, grandchild] = yield* oneConnection({ ...nodeServer("detacher.mjs"), shutdown: grace }, 2)
          assert.notStrictEqual(server, grandchild)
          assert.isTrue(yield* awaitGone(server, 5_000), `server ${server} is still running`)
          assert.isTrue(yield* awaitGone(grandchild, 5_000), `detached grandchild ${grandchild} is still running`)
        })
    )

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
