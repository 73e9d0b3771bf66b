import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as StdioTransport from "../StdioTransport.js"
import * as StdioError from "../StdioError.js"
import type { Backend, ExitStatus, Process, Signal } from "./backend.js"
import { defaultStdinHighWaterBytes, describeExit } from "./backend.js"
import * as Descendants from "./descendants.js"
import * as environment from "./environment.js"
import * as LineSplitter from "./lineSplitter.js"
import * as Ndjson from "./ndjson.js"
import * as Outbox from "./outbox.js"
import * as Stderr from "./stderr.js"

/** @internal */
export const defaultStdinGraceMillis = 2_000

/** @internal */
export const defaultTermGraceMillis = 2_000

/** @internal */
export const defaultIncomingCapacity = 256

// how long to wait for the process to be reaped after SIGKILL before giving up on it
const killWaitMillis = 2_000

// after stdout ends, how long to wait for the exit status, then for the rest of stderr
const exitWaitMillis = 1_000
const stderrWaitMillis = 250

const maxStderrLineBytes = 64 * 1024

/**
 * Stops a connection's process: close stdin, wait, SIGTERM the group, wait,
 * SIGKILL the group. `Process.kill` signals the process group and then waits
 * for the leader without a bound, so every wait here is bounded. Once the
 * leader is gone, whatever is left of its group is an orphan and is killed.
 * Descendants that left the group (captured before anything is signalled)
 * get the same signals.
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
  const running = process.isRunning
  return Effect.gen(function*() {
    const descendants = (yield* running) ? yield* Descendants.capture(process.pid) : []
    const signal = (signal: Signal, waitMillis: number) =>
      Descendants.signal(descendants, signal).pipe(
        Effect.zipRight(Effect.interruptible(process.kill(signal)).pipe(Effect.timeoutOption(waitMillis)))
      )
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
 * What the connection's callbacks need to log (stderr lines, the exit): the
 * fiber's refs (loggers, level, annotations) without its context, which
 * holds the app's services, the layer's memo map and the connection's scope
 * (about 2.5 KiB an idle session would keep for its whole life).
 */
const forLogging = (runtime: Runtime.Runtime<never>): Runtime.Runtime<never> =>
  Runtime.make({
    context: Context.empty(),
    fiberRefs: FiberRefs.delete(runtime.fiberRefs, FiberRef.currentContext),
    runtimeFlags: runtime.runtimeFlags
  })

/**
 * The transport over any backend: NDJSON framing, the environment
 * whitelist, stderr as a log stream, the shutdown ladder, and restarts on
 * the reconnect schedule.
 *
 * @internal
 */
export const make = <R>(
  options: StdioTransport.Options,
  backend: Backend<R>,
  /**
   * The services the backend needs, taken from the layer's context: the transport keeps them as long as
   * it lives (all of the context but its scope unless told, which also holds the app's other services and
   * the layer's memo map).
   */
  backendContext: (context: Context.Context<R | Scope.Scope>) => Context.Context<R> = (context) =>
    Context.omit(Scope.Scope)(context) as Context.Context<R>
): Effect.Effect<
  { readonly transport: McpTransport.McpTransport["Type"]; readonly logs: StdioTransport.Logs },
  never,
  R | Scope.Scope
> =>
  Effect.gen(function*() {
    const logHub = Stderr.makeLogHub()
    // finalizers go on the scope itself: `Effect.addFinalizer` keeps a copy of the fiber's refs for each
    yield* Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, logHub.shutdown))

    const description = `stdio:${options.command}`
    const maxMessageBytes = options.maxMessageBytes ?? JsonRpc.defaultMaxMessageBytes
    const incomingCapacity = options.incomingCapacity ?? defaultIncomingCapacity
    const stdinHighWaterBytes = options.stdinHighWaterBytes ?? defaultStdinHighWaterBytes
    const stdinGraceMillis = options.shutdown?.stdinGraceMillis ?? defaultStdinGraceMillis
    const termGraceMillis = options.shutdown?.termGraceMillis ?? defaultTermGraceMillis
    const env = environment.build(options.env, options.inheritEnv)
    const args = options.args ?? []

    const stderrLine = (frame: LineSplitter.Frame) =>
      frame === LineSplitter.Overflow ? `[stderr line longer than ${maxStderrLineBytes} bytes dropped]` : frame
    const logStderr = (lines: ReadonlyArray<string>) =>
      Effect.forEach(lines, (line) => Effect.zipRight(logHub.publish(line), Effect.logDebug(line)), { discard: true }).pipe(
        Effect.annotateLogs({ "mcp.server": description, "mcp.stream": "stderr" })
      )

    const connect = (
      permanentFailure: Deferred.Deferred<never, McpError.TransportError>
    ): Effect.Effect<McpTransport.Connection, McpError.TransportError, R | Scope.Scope> =>
      Effect.gen(function*() {
        const connectionScope = yield* Effect.scope
        let closed: McpError.TransportError | undefined
        // made when a sender first waits for room, and completed when `closed` is set, to wake it
        let closing: Deferred.Deferred<void> | undefined
        const close = (why: string) => {
          if (closed === undefined) {
            closed = new McpError.TransportError({ reason: "Write", message: `${description}: ${why}` })
            if (closing !== undefined) Deferred.unsafeDone(closing, Effect.void)
          }
        }
        const process = yield* backend({
          command: options.command,
          args,
          env,
          cwd: options.cwd,
          stdinHighWaterBytes,
          onWriteError: (reason) => close(`cannot write to the server (${reason})`)
        }).pipe(
          Effect.catchAll(({ error, permanent }) =>
            (permanent ? Deferred.fail(permanentFailure, error) : Effect.void).pipe(Effect.zipRight(Effect.fail(error)))
          )
        )

        // stderr is split, kept, published and logged in the callback that reads it: no stream per connection
        // made by the first stderr output (many servers write none): ~0.8 KiB an idle session keeps otherwise
        let tail: Stderr.Tail | undefined
        let stderrSplitter: LineSplitter.LineSplitter | undefined
        // whether stderr ended, and who waits for it (at most the one fiber that saw stdout end)
        let stderrDone = false
        let onStderrEnd: (() => void) | undefined
        const stderrEnded = Effect.async<void>((resume) => {
          if (stderrDone) return resume(Effect.void)
          onStderrEnd = () => resume(Effect.void)
          return Effect.sync(() => onStderrEnd = undefined)
        })
        const runtime = yield* Effect.map(Effect.runtime<never>(), forLogging)
        const stderrFrames: Array<LineSplitter.Frame> = []
        const flushStderr = () => {
          if (stderrFrames.length === 0) return
          const lines = stderrFrames.map(stderrLine)
          stderrFrames.length = 0
          tail ??= Stderr.makeTail()
          for (const line of lines) tail.add(line)
          Runtime.runSync(runtime, logStderr(lines))
        }
        // callbacks, not fibers waiting for the end: an idle session pays for every fiber
        yield* process.readStderr(
          (bytes) => {
            stderrSplitter ??= LineSplitter.make(maxStderrLineBytes)
            stderrSplitter.push(bytes, stderrFrames)
            flushStderr()
          },
          () => {
            stderrSplitter?.end(stderrFrames)
            flushStderr()
            stderrDone = true
            onStderrEnd?.()
          }
        )
        yield* process.onExit((status) => {
          close(`the server process exited ${describeExit(status)}`)
          Runtime.runSync(
            runtime,
            Effect.logDebug(`stdio server process ${process.pid} exited ${describeExit(status)}`).pipe(
              Effect.annotateLogs("mcp.server", description)
            )
          )
        })
        // added last so it runs first, before the fibers above are interrupted
        // and before a backend's own release
        // (built when it runs: the ladder's steps would be ~1 KiB per idle session until then)
        yield* Scope.addFinalizer(
          connectionScope,
          Effect.suspend(() =>
            shutdown(
              process,
              Effect.suspend(() => {
                close("the connection is closed")
                outbox.flush()
                return process.endInput
              }),
              stdinGraceMillis,
              termGraceMillis
            ).pipe(Effect.annotateLogs("mcp.server", description))
          )
        )

        /** The error that ends the connection when the server is gone, quoting its last stderr lines. */
        const exitedError = (status: ExitStatus): McpError.TransportError => {
          const stderrTail = tail?.lines() ?? []
          const message = `${description}: the server exited ${describeExit(status)}` +
            (stderrTail.length > 0 ? `; its last stderr output:\n${stderrTail.join("\n")}` : "; it wrote nothing on stderr")
          return new McpError.TransportError({
            reason: "Closed",
            message,
            cause: new StdioError.ServerExited({
              pid: process.pid,
              ...(status._tag === "Code" ? { exitCode: status.code } : { signal: status.signal }),
              stderrTail,
              message
            })
          })
        }

        // stdout ended: normally the process is exiting; if so, the connection fails with why
        const stdoutEnded = () => Effect.gen(function*() {
          const status = yield* Effect.timeoutOption(process.exited, exitWaitMillis)
          if (Option.isNone(status)) {
            close("the server closed its output")
            return
          }
          yield* Effect.timeoutOption(stderrEnded, stderrWaitMillis)
          const error = exitedError(status.value)
          close(`the server process exited ${describeExit(status.value)}`)
          return yield* Effect.fail(error)
        })

        /**
         * stdout framed and decoded as it arrives, and handed on in the same callback: `onBytes`
         * for each chunk (`true` once a line was too long: nothing after it is read), and the
         * end, for how the output ended (a failure's reason).
         */
        const frameStdout = (onMessages: (messages: ReadonlyArray<JsonRpc.Incoming>) => void) => {
          const splitter = LineSplitter.make(maxMessageBytes)
          const frames: Array<LineSplitter.Frame> = []
          // a line over the limit: the framing can no longer be trusted, the connection is over
          let tooLarge: McpError.TransportError | undefined
          /** Hands on what is framed; `true` once a line was too long. */
          const flush = (): boolean => {
            if (frames.length === 0) return false
            const out: Array<JsonRpc.Incoming> = []
            let broken = false
            for (const frame of frames) {
              if (frame === LineSplitter.Overflow) {
                broken = true
                break
              }
              Ndjson.decodeFrame(frame, maxMessageBytes, out)
            }
            frames.length = 0
            if (out.length > 0) onMessages(out)
            if (broken) {
              const why = `the server sent a line longer than the limit of ${maxMessageBytes} bytes`
              close(why)
              tooLarge = new McpError.TransportError({ reason: "Read", message: `${description}: ${why}` })
            }
            return broken
          }
          return {
            onBytes: (bytes: Uint8Array) => {
              splitter.push(bytes, frames)
              return flush()
            },
            end: (failure: string | undefined): Effect.Effect<void, McpError.TransportError> => {
              if (failure !== undefined) {
                close("the server's output broke")
                return Effect.fail(
                  new McpError.TransportError({
                    reason: "Read",
                    message: `${description}: cannot read the server's output (${failure})`
                  })
                )
              }
              if (tooLarge !== undefined) return Effect.fail(tooLarge)
              splitter.end(frames)
              flush()
              return stdoutEnded()
            }
          }
        }

        // the read stops in its own callback at a line too long: no fiber races it
        const push = (onMessages: (messages: ReadonlyArray<JsonRpc.Incoming>) => void) =>
          Effect.suspend(() => {
            const { end, onBytes } = frameStdout(onMessages)
            return Effect.matchEffect(process.readStdout(onBytes), {
              onSuccess: () => end(undefined),
              onFailure: end
            })
          })

        // the same without a fiber waiting for the end: an idle session holds none
        const listen = process.listenStdout === undefined ? undefined : (
          onMessages: (messages: ReadonlyArray<JsonRpc.Incoming>) => void,
          onEnd: (end: Effect.Effect<void, McpError.TransportError>) => void
        ) => {
          const { end, onBytes } = frameStdout(onMessages)
          // the end is framed when its effect runs (after the messages handed on before it)
          return process.listenStdout!(onBytes, (failure) => onEnd(Effect.suspend(() => end(failure))))
        }

        // for readers without `push`: at most `incomingCapacity` messages (plus one stdout chunk's)
        // wait here; beyond that stdout is paused until the reader takes them (built when run: a
        // session reads through `push` and holds none of its stages)
        const incoming = Stream.suspend(() => Stream.unwrapScoped(Effect.gen(function*() {
          const mailbox = yield* Mailbox.make<JsonRpc.Incoming, McpError.TransportError>()
          let paused = false
          yield* push((messages) => {
            mailbox.unsafeOfferAll(messages)
            if (!paused && Option.getOrElse(mailbox.unsafeSize(), () => 0) >= incomingCapacity) {
              paused = true
              process.pauseStdout()
            }
          }).pipe(Mailbox.into(mailbox), Effect.forkScoped)
          return Mailbox.toStream(mailbox).pipe(
            Stream.mapChunks((chunk) => {
              if (paused) {
                paused = false
                process.resumeStdout()
              }
              return chunk
            })
          )
        })))

        const outbox = Outbox.make((text) => process.write(text), Math.min(Outbox.defaultBatchChars, stdinHighWaterBytes))
        // below the high-water mark, a message is queued for the end of the tick at once
        const sendNow = (message: JsonRpc.Message): boolean => {
          if (closed !== undefined || !process.hasRoom()) return false
          outbox.add(Ndjson.encode(message))
          return true
        }
        // one watcher for every waiting sender (not a "drain" listener each); it ends with the connection
        let roomGate: Deferred.Deferred<void> | undefined
        const watchRoom = (gate: Deferred.Deferred<void>, closing: Deferred.Deferred<void>) =>
          Effect.raceFirst(process.writable, Deferred.await(closing)).pipe(
            Effect.ensuring(Effect.sync(() => {
              roomGate = undefined
              Deferred.unsafeDone(gate, Effect.void)
            }))
          )
        const waitForRoom = Effect.suspend(() => {
          if (roomGate !== undefined) return Deferred.await(roomGate)
          const gate = roomGate = Deferred.unsafeMake<void>(FiberId.none)
          if (closing === undefined) {
            closing = Deferred.unsafeMake<void>(FiberId.none)
            // closed since `send` looked: the watcher ends at once
            if (closed !== undefined) Deferred.unsafeDone(closing, Effect.void)
          }
          return Effect.zipRight(Effect.forkIn(watchRoom(gate, closing), connectionScope), Deferred.await(gate))
        })
        // past the high-water mark, a send waits until the server has read enough, then writes;
        // woken senders check again: those that find the buffer full again wait for the next room
        const send = (message: JsonRpc.Message): Effect.Effect<void, McpError.TransportError> =>
          Effect.suspend(() =>
            closed !== undefined ?
              Effect.fail(closed) :
              sendNow(message) ?
              Effect.void :
              Effect.zipRight(waitForRoom, send(message))
          )

        yield* Effect.logDebug(`stdio server process ${process.pid} started`).pipe(
          Effect.annotateLogs("mcp.server", description)
        )
        return { incoming, push, listen, send, sendNow, description, networkTransport: "pipe" }
      })

    // the backend's services, but not this layer's scope: each connection has its own
    const context = backendContext(yield* Effect.context<R | Scope.Scope>())
    // each run (session) has its own `giveUp`; the session reads the stream without its stream stages
    const connections = McpTransport.suspend(() => {
      const permanentFailure = Deferred.unsafeMake<never, McpError.TransportError>(FiberId.none)
      return McpTransport.fromConnect(Effect.provide(connect(permanentFailure), context), options.reconnect, permanentFailure)
    })

    return {
      transport: { connections },
      logs: { lines: logHub.lines, subscribe: logHub.subscribe }
    }
  })
