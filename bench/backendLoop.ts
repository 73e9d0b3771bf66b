/**
 * What one message costs in a stdio backend alone, with no MCP on top: round
 * trips of one NDJSON line through `cat` (the line goes to its stdin, comes
 * back on its stdout), one after the other, through `nodeBackend` (Node's
 * `child_process`) or `commandBackend` (`@effect/platform`'s `Command` on
 * `NodeContext`). Prints this process's CPU (user + system) and wall time
 * per round trip; `cat` is not counted.
 *
 * ```
 * node bench/start.mjs bench/backendLoop.ts [--backend node|command] [--trips 20000] [--repeats 3]
 * ```
 *
 * Under `valgrind --tool=callgrind` (run the compiled `.cache/bench/backendLoop.mjs` with `node`),
 * two values of `--trips` give the instructions per round trip (bench/README.md, "Counts").
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import { parseArgs } from "node:util"
import { defaultStdinHighWaterBytes } from "../packages/transport-stdio/src/internal/backend.js"
import { commandBackend } from "../packages/transport-stdio/src/internal/commandBackend.js"
import { nodeBackend } from "../packages/transport-stdio/src/internal/nodeBackend.js"

const { values: flags } = parseArgs({
  options: {
    backend: { type: "string", default: "command" },
    trips: { type: "string", default: "20000" },
    repeats: { type: "string", default: "3" }
  }
})
if (flags.backend !== "node" && flags.backend !== "command") throw new Error("--backend must be node or command")
const trips = Number(flags.trips)
const line =
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }) +
  "\n"

const program = Effect.gen(function*() {
  const backend = flags.backend === "node" ? nodeBackend : commandBackend
  const process = yield* Effect.mapError(
    backend({
      command: "cat",
      args: [],
      env: { PATH: globalThis.process.env.PATH ?? "/usr/bin:/bin" },
      cwd: undefined,
      stdinHighWaterBytes: defaultStdinHighWaterBytes,
      onWriteError: (reason) => console.error(`write error: ${reason}`)
    }),
    ({ error }) => error
  )
  let waiting: ((effect: Effect.Effect<void>) => void) | undefined
  yield* Effect.forkScoped(process.readStdout((bytes) => {
    // one line per trip: the trip is over once its newline is back
    if (bytes[bytes.length - 1] === 0x0a && waiting !== undefined) {
      const resume = waiting
      waiting = undefined
      resume(Effect.void)
    }
    return false
  }))
  const trip = Effect.async<void>((resume) => {
    waiting = resume
    process.write(line)
  })
  const round = Effect.gen(function*() {
    const cpu = globalThis.process.cpuUsage()
    const start = performance.now()
    for (let i = 0; i < trips; i++) yield* trip
    const wall = (performance.now() - start) * 1000 / trips
    const used = globalThis.process.cpuUsage(cpu)
    return { wall, cpu: (used.user + used.system) / trips }
  })
  yield* round // warm-up
  for (let r = 0; r < Number(flags.repeats); r++) {
    const { cpu, wall } = yield* round
    console.log(`${flags.backend}: ${cpu.toFixed(1)} µs CPU, ${wall.toFixed(1)} µs wall per round trip`)
  }
})

Effect.runPromise(Effect.scoped(Effect.provide(program, NodeContext.layer))).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
