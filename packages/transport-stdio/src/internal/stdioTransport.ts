import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as StdioTransport from "../StdioTransport.js"
import type { Backend, Process, Signal } from "./backend.js"
import * as environment from "./environment.js"
import * as LineSplitter from "./lineSplitter.js"
import * as Ndjson from "./ndjson.js"

/** @internal */
export const defaultStdinGraceMillis = 2_000

/** @internal */
export const defaultTermGraceMillis = 2_000

// how long to wait for the process to be reaped after SIGKILL before giving up on it
const killWaitMillis = 2_000

const maxStderrLineBytes = 64 * 1024

/**
 * Stops a connection's process: close stdin, wait, SIGTERM the group, wait,
 * SIGKILL the group. `Process.kill` signals the process group and then waits
 * for the leader without a bound, so every wait here is bounded. Once the
 * leader is gone, whatever is left of its group is an orphan and is killed.
 */
const shutdown = (
  process: Process,
  closeStdin: Effect.Effect<void>,
  stdinGraceMillis: number,
  termGraceMillis: number
): Effect.Effect<void> => {
  // finalizers are uninterruptible: the waits must be interruptible for the timeouts to end them
  const exitedWithin = (millis: number) =>
    Effect.interruptible(process.exited).pipe(Effect.timeoutOption(millis), Effect.map(Option.isSome))
  const signal = (signal: Signal, waitMillis: number) =>
    Effect.interruptible(process.kill(signal)).pipe(Effect.timeoutOption(waitMillis))
  const running = process.isRunning
  return Effect.gen(function*() {
    yield* closeStdin
    if (!(yield* exitedWithin(stdinGraceMillis))) {
      yield* Effect.logDebug("stdio server still running after stdin was closed: SIGTERM")
      yield* signal("SIGTERM", termGraceMillis)
      if (yield* running) {
        yield* Effect.logWarning("stdio server ignored SIGTERM: SIGKILL")
        yield* signal("SIGKILL", killWaitMillis)
      }
    }
    // on Windows the kill above already took the whole tree (taskkill /T)
    if (!environment.isWindows) yield* signal("SIGKILL", killWaitMillis)
    if (yield* running) yield* Effect.logError("stdio server could not be stopped")
  })
}

/**
 * The transport over any backend: NDJSON framing, the environment
 * whitelist, stderr as a log stream, the shutdown ladder, and restarts on
 * the reconnect schedule.
 *
 * @internal
 */
export const make = <R>(
  options: StdioTransport.Options,
  backend: Backend<R>
): Effect.Effect<
  { readonly transport: McpTransport.McpTransport["Type"]; readonly logs: StdioTransport.Logs },
  never,
  R | Scope.Scope
> =>
  Effect.gen(function*() {
    const stderrLines = yield* PubSub.sliding<string>({ capacity: 1024, replay: 64 })
    yield* Effect.addFinalizer(() => PubSub.shutdown(stderrLines))

    const description = `stdio:${options.command}`
    const maxMessageBytes = options.maxMessageBytes ?? JsonRpc.defaultMaxMessageBytes
    const stdinGraceMillis = options.shutdown?.stdinGraceMillis ?? defaultStdinGraceMillis
    const termGraceMillis = options.shutdown?.termGraceMillis ?? defaultTermGraceMillis
    const env = environment.build(options.env, options.inheritEnv)
    const args = options.args ?? []

    const publishStderr = (frame: LineSplitter.Frame, out: Array<string>) =>
      out.push(frame === LineSplitter.Overflow ? `[stderr line longer than ${maxStderrLineBytes} bytes dropped]` : frame)

    const connect = (
      permanentFailure: Deferred.Deferred<never, McpError.TransportError>
    ): Effect.Effect<McpTransport.Connection, McpError.TransportError, R | Scope.Scope> =>
      Effect.gen(function*() {
        let closed: McpError.TransportError | undefined
        const close = (why: string) => {
          if (closed === undefined) {
            closed = new McpError.TransportError({ reason: "Write", message: `${description}: ${why}` })
          }
        }
        const process = yield* backend({
          command: options.command,
          args,
          env,
          cwd: options.cwd,
          onWriteError: (reason) => close(`cannot write to the server (${reason})`)
        }).pipe(
          Effect.catchAll(({ error, permanent }) =>
            (permanent ? Deferred.fail(permanentFailure, error) : Effect.void).pipe(Effect.zipRight(Effect.fail(error)))
          )
        )

        yield* LineSplitter.splitStream(process.stderr, maxStderrLineBytes, publishStderr).pipe(
          Stream.runForEach((line) => Effect.zipRight(PubSub.publish(stderrLines, line), Effect.logDebug(line))),
          Effect.ignore,
          Effect.annotateLogs({ "mcp.server": description, "mcp.stream": "stderr" }),
          Effect.forkScoped
        )
        yield* process.exited.pipe(
          Effect.flatMap((status) => {
            close(`the server process exited ${status}`)
            return Effect.logDebug(`stdio server process ${process.pid} exited ${status}`)
          }),
          Effect.annotateLogs("mcp.server", description),
          Effect.forkScoped
        )
        // added last so it runs first, before the fibers above are interrupted
        // and before a backend's own release
        yield* Effect.addFinalizer(() =>
          shutdown(
            process,
            Effect.suspend(() => {
              close("the connection is closed")
              return process.endInput
            }),
            stdinGraceMillis,
            termGraceMillis
          ).pipe(Effect.annotateLogs("mcp.server", description))
        )

        // stdout is framed and decoded as it arrives, and handed on in the same callback
        const push = (onMessages: (messages: ReadonlyArray<JsonRpc.Incoming>) => void) =>
          Effect.suspend(() => {
            const splitter = LineSplitter.make(maxMessageBytes)
            const frames: Array<LineSplitter.Frame> = []
            const flush = () => {
              if (frames.length === 0) return
              const out: Array<JsonRpc.Incoming> = []
              for (const frame of frames) Ndjson.decodeFrame(frame, maxMessageBytes, out)
              frames.length = 0
              if (out.length > 0) onMessages(out)
            }
            return process.readStdout((bytes) => {
              splitter.push(bytes, frames)
              flush()
            }).pipe(
              Effect.matchEffect({
                onSuccess: () =>
                  Effect.sync(() => {
                    splitter.end(frames)
                    flush()
                    // before the end reaches the reader, so a send right after it fails
                    close("the server closed its output")
                  }),
                onFailure: (reason) => {
                  close("the server's output broke")
                  return Effect.fail(
                    new McpError.TransportError({
                      reason: "Read",
                      message: `${description}: cannot read the server's output (${reason})`
                    })
                  )
                }
              })
            )
          })

        const incoming = Stream.asyncPush<JsonRpc.Incoming, McpError.TransportError>((emit) =>
          push((messages) => {
            if (messages.length === 1) emit.single(messages[0])
            else emit.chunk(Chunk.unsafeFromArray(messages as Array<JsonRpc.Incoming>))
          }).pipe(
            Effect.matchEffect({
              onSuccess: () => Effect.sync(() => emit.end()),
              onFailure: (error) => Effect.sync(() => emit.fail(error))
            }),
            Effect.forkScoped
          ), { bufferSize: "unbounded" })

        const send = (message: JsonRpc.Message): Effect.Effect<void, McpError.TransportError> =>
          Effect.suspend(() => {
            if (closed !== undefined) return Effect.fail(closed)
            process.write(Ndjson.encode(message))
            return Effect.void
          })

        yield* Effect.logDebug(`stdio server process ${process.pid} started`).pipe(
          Effect.annotateLogs("mcp.server", description)
        )
        return { incoming, push, send, description }
      })

    // the backend's services, but not this layer's scope: each connection has its own
    const context = Context.omit(Scope.Scope)(yield* Effect.context<R | Scope.Scope>()) as Context.Context<R>
    const connections = Stream.unwrap(
      Effect.map(
        Deferred.make<never, McpError.TransportError>(),
        (permanentFailure) =>
          McpTransport.fromConnect(Effect.provide(connect(permanentFailure), context), options.reconnect).pipe(
            Stream.interruptWhenDeferred(permanentFailure)
          )
      )
    )

    return {
      transport: { connections },
      logs: { lines: Stream.fromPubSub(stderrLines), subscribe: PubSub.subscribe(stderrLines) }
    }
  })
