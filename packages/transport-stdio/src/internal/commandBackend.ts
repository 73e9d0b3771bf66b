import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as PlatformError from "@effect/platform/Error"
import * as McpError from "@mcp-effect/core/McpError"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import type { Backend, ExitStatus, StartFailure, StartOptions } from "./backend.js"

const encoder = new TextEncoder()

// ends a chunk handed to the stdin sink once `drainCheckBytes` were written since the last one: the
// sink waits for "drain" between the writes of a chunk but not after its last one, so without it a
// chunk of one write would never wait. An empty write costs a system call: small chunks go without.
const waitForDrain = new Uint8Array(0)

// Node's default high-water mark of a writable stream: below it, a write never asks to wait for "drain"
const drainCheckBytes = 16 * 1024

/** `parts` in one array of `bytes` bytes. */
const joined = (parts: ReadonlyArray<Uint8Array>, bytes: number): Uint8Array => {
  const all = new Uint8Array(bytes)
  let offset = 0
  for (const part of parts) {
    all.set(part, offset)
    offset += part.length
  }
  return all
}

const describeCause = (error: PlatformError.PlatformError): string =>
  error.description ?? (error._tag === "SystemError" ? error.reason : "bad argument")

// the executor reports a signal only in its error's text
const signalOf = (cause: Cause.Cause<PlatformError.PlatformError>): string =>
  Cause.pretty(cause).match(/signal: (SIG[A-Z0-9]+)/)?.[1] ?? "a signal"

const startError = (options: StartOptions, error: PlatformError.PlatformError): StartFailure => {
  const prefix = `could not start "${options.command}"`
  const fail = (message: string, permanent: boolean): StartFailure => ({
    error: new McpError.TransportError({ reason: "Connect", phase: "spawn", message: `${prefix}: ${message}` }),
    permanent
  })
  if (error._tag === "SystemError" && error.module === "FileSystem") {
    return fail(`the working directory "${options.cwd}" is not accessible (${error.reason})`, true)
  }
  if (error._tag === "SystemError" && (error.reason === "NotFound" || error.reason === "PermissionDenied")) {
    const what = error.reason === "NotFound" ? "command not found" : "permission denied"
    return fail(`${what} (${describeCause(error)})`, true)
  }
  return fail(describeCause(error), false)
}

/**
 * What `commandBackend` keeps of the layer's context: the executor alone.
 * It is here, not in `StdioTransport.ts`, so that the platform's
 * `CommandExecutor` and `Command` are imported only by this module: a
 * client on `NodeStdioTransport` does not load them.
 *
 * @internal
 */
export const commandContext = (
  context: Context.Context<CommandExecutor.CommandExecutor>
): Context.Context<CommandExecutor.CommandExecutor> => Context.pick(CommandExecutor.CommandExecutor)(context)

/**
 * Starts servers with `@effect/platform`'s `CommandExecutor`, so any runtime
 * with an executor (Node, Bun) works. Its streams cost more per message than
 * Node's own child process API (see `NodeStdioTransport`).
 *
 * @internal
 */
export const commandBackend: Backend<CommandExecutor.CommandExecutor> = (options) =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    let command = Command.make(options.command, ...options.args).pipe(
      Command.env(options.env, { extendEnv: false })
    )
    if (options.cwd !== undefined) command = Command.workingDirectory(command, options.cwd)
    const process = yield* Effect.mapError(executor.start(command), (error) => startError(options, error))

    // bounded by `hasRoom` answering false at the high-water mark; the sink waits for "drain"
    let queued: Array<Uint8Array> = []
    let queuedBytes = 0
    let inputEnded = false
    let stdinGone = false
    let sinceDrainCheck = 0
    // the writing fiber, while it waits for input: a write wakes it with no queue or Mailbox of Effect's in
    // between (no canceler: it is only interrupted with the scope, and a late wake-up of it is a no-op)
    let wake: ((effect: Effect.Effect<void>) => void) | undefined
    const wakeWriter = () => {
      const resume = wake
      wake = undefined
      resume?.(Effect.void)
    }
    const inputArrives = Effect.async<void>((resume) => {
      if (queued.length > 0 || inputEnded) return resume(Effect.void)
      wake = resume
    })
    const room = yield* Effect.makeLatch(true)
    // the one stage before the sink: everything queued, as one chunk, until the input ends
    const pullStdin: Channel.Channel<Chunk.Chunk<Uint8Array>> = Channel.suspend(() => {
      if (queued.length === 0) {
        return inputEnded
          ? Channel.void
          : Channel.zipRight(Channel.fromEffect(inputArrives), pullStdin)
      }
      // the lines queued since the last pull, as one write (the transport hands them over one by one)
      const chunk = queued.length === 1 ? queued : [joined(queued, queuedBytes)]
      queued = []
      sinceDrainCheck += queuedBytes
      queuedBytes = 0
      room.unsafeOpen()
      if (sinceDrainCheck >= drainCheckBytes) {
        sinceDrainCheck = 0
        chunk.push(waitForDrain)
      }
      return Channel.zipRight(Channel.write(Chunk.unsafeFromArray(chunk)), pullStdin)
    })
    // piped straight into the sink's channel: the queue never fails, so no stage passes its errors on
    yield* Channel.pipeTo(pullStdin, Sink.toChannel(process.stdin)).pipe(
      Channel.runDrain,
      Effect.catchAll((error) => Effect.sync(() => options.onWriteError(describeCause(error)))),
      Effect.ensuring(Effect.sync(() => {
        stdinGone = true
        room.unsafeOpen()
      })),
      Effect.forkScoped
    )
    const exited = Effect.map(Effect.exit(process.exitCode), (exit): ExitStatus =>
      Exit.isSuccess(exit) ?
        { _tag: "Code", code: exit.value } :
        { _tag: "Signal", signal: signalOf(exit.cause) })
    // pulls stop at the closed latch, so the server blocks on a full pipe
    const reading = yield* Effect.makeLatch(true)
    let paused = false
    const readStdout = (onBytes: (bytes: Uint8Array) => boolean) =>
      // each chunk is pulled straight from the stream's channel and handed to `onBytes`: no channel
      // of ours downstream of it; the read ends when `onBytes` wants no more
      Effect.scoped(Effect.flatMap(Channel.toPull(Stream.toChannel(process.stdout)), (pull) => {
        const loop: Effect.Effect<void, PlatformError.PlatformError> = Effect.flatMap(pull, (next) => {
          if (Either.isLeft(next)) return Effect.void // the output ended
          for (const bytes of next.right) {
            if (onBytes(bytes)) return Effect.void
          }
          return paused ? Effect.zipRight(reading.await, loop) : loop
        })
        return loop
      }))
    return {
      pid: process.pid,
      // the writing fiber takes everything queued when it runs: the lines of one tick are one write
      batchesWrites: true,
      write: (line) => {
        if (stdinGone || inputEnded) return
        const bytes = encoder.encode(line)
        queuedBytes += bytes.length
        queued.push(bytes)
        if (queuedBytes >= options.stdinHighWaterBytes) room.unsafeClose()
        wakeWriter()
      },
      hasRoom: () => stdinGone || queuedBytes < options.stdinHighWaterBytes,
      writable: room.await,
      endInput: Effect.sync(() => {
        inputEnded = true
        wakeWriter()
      }),
      readStdout: (onBytes) => Effect.mapError(readStdout(onBytes), describeCause),
      pauseStdout: () => {
        paused = true
        reading.unsafeClose()
      },
      resumeStdout: () => {
        paused = false
        reading.unsafeOpen()
      },
      // the platform's process offers streams and effects only: a fiber each waits for the end
      readStderr: (onBytes, onEnd) =>
        process.stderr.pipe(
          Stream.runForEachChunk((chunk) =>
            Effect.sync(() => {
              for (const bytes of chunk) onBytes(bytes)
            })
          ),
          Effect.ignore,
          Effect.zipRight(Effect.sync(onEnd)),
          Effect.forkScoped,
          Effect.asVoid
        ),
      onExit: (onExit) =>
        Effect.asVoid(Effect.forkScoped(Effect.flatMap(exited, (status) => Effect.sync(() => onExit(status))))),
      exited,
      isRunning: Effect.orElseSucceed(process.isRunning, () => false),
      kill: (signal) => Effect.ignore(process.kill(signal))
    }
  })
