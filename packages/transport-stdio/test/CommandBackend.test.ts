import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { defaultStdinHighWaterBytes } from "../src/internal/backend.js"
import { commandBackend } from "../src/internal/commandBackend.js"

/** An executor whose one process records each chunk its stdin sink takes; stdout stays open and silent. */
const recordingExecutor = (chunks: Array<ReadonlyArray<Uint8Array>>, first: Deferred.Deferred<void>) =>
  CommandExecutor.makeExecutor(() =>
    Effect.succeed<CommandExecutor.Process>({
      [CommandExecutor.ProcessTypeId]: CommandExecutor.ProcessTypeId,
      pid: CommandExecutor.ProcessId(4_194_305),
      exitCode: Effect.never,
      isRunning: Effect.succeed(true),
      kill: () => Effect.void,
      stderr: Stream.empty,
      stdout: Stream.never,
      stdin: Sink.forEachChunk((chunk: Chunk.Chunk<Uint8Array>) =>
        Effect.zipRight(
          Effect.sync(() => chunks.push(Chunk.toReadonlyArray(chunk))),
          Deferred.succeed(first, undefined)
        )
      ),
      toJSON: () => ({ _id: "RecordingProcess" }),
      toString: () => "RecordingProcess",
      [Inspectable.NodeInspectSymbol]: () => "RecordingProcess"
    })
  )

const decoder = new TextDecoder()

describe("commandBackend", () => {
  it.scoped("lines written in one tick reach the platform's stdin as one write, in order", () =>
    Effect.gen(function*() {
      const chunks: Array<ReadonlyArray<Uint8Array>> = []
      const first = yield* Deferred.make<void>()
      const process = yield* Effect.mapError(
        commandBackend({
          command: "fake",
          args: [],
          env: {},
          cwd: undefined,
          stdinHighWaterBytes: defaultStdinHighWaterBytes,
          onWriteError: () => {}
        }),
        ({ error }) => error
      ).pipe(Effect.provideService(CommandExecutor.CommandExecutor, recordingExecutor(chunks, first)))
      // the transport hands it each line at once: the backend batches them itself
      assert.isTrue(process.batchesWrites)
      process.write("a\n")
      process.write("é\n")
      process.write("c\n")
      yield* Deferred.await(first)
      assert.strictEqual(chunks.length, 1)
      assert.strictEqual(chunks[0].length, 1)
      assert.strictEqual(decoder.decode(chunks[0][0]), "a\né\nc\n")
    }))
})
