import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as PlatformError from "@effect/platform/Error"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as StdioTransport from "../StdioTransport.js"
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

// written to the stdin queue to end the input stream (compared by identity)
const endOfInput = new Uint8Array(0)

const describeCause = (error: PlatformError.PlatformError): string =>
  error.description ?? (error._tag === "SystemError" ? error.reason : "bad argument")

/**
 * A failed start, and whether trying again can help: a missing or
 * non-executable program, or a missing working directory, stays that way.
 */
const startError = (
  options: StdioTransport.Options,
  error: PlatformError.PlatformError
): { readonly error: McpError.TransportError; readonly permanent: boolean } => {
  const prefix = `could not start "${options.command}"`
  if (error._tag === "SystemError" && error.module === "FileSystem") {
    return {
      error: new McpError.TransportError({
        reason: "Connect",
        phase: "spawn",
        message: `${prefix}: the working directory "${options.cwd}" is not accessible (${error.reason})`
      }),
      permanent: true
    }
  }
  if (error._tag === "SystemError" && (error.reason === "NotFound" || error.reason === "PermissionDenied")) {
    const what = error.reason === "NotFound" ? "command not found" : "permission denied"
    return {
      error: new McpError.TransportError({
        reason: "Connect",
        phase: "spawn",
        message: `${prefix}: ${what} (${describeCause(error)})`
      }),
      permanent: true
    }
  }
  return {
    error: new McpError.TransportError({
      reason: "Connect",
      phase: "spawn",
      message: `${prefix}: ${describeCause(error)}`
    }),
    permanent: false
  }
}

/**
 * Stops a connection's process: close stdin, wait, SIGTERM the group, wait,
 * SIGKILL the group. `Process.kill` signals the process group and then waits
 * for the leader without a bound, so every wait here is bounded. Once the
 * leader is gone, whatever is left of its group is an orphan and is killed.
 */
const shutdown = (
  process: CommandExecutor.Process,
  closeStdin: Effect.Effect<void>,
  stdinGraceMillis: number,
  termGraceMillis: number
): Effect.Effect<void> => {
  // finalizers are uninterruptible: the waits must be interruptible for the timeouts to end them
  const exitedWithin = (millis: number) =>
    Effect.interruptible(Effect.exit(process.exitCode)).pipe(Effect.timeoutOption(millis), Effect.map(Option.isSome))
  const signal = (signal: CommandExecutor.Signal, waitMillis: number) =>
    Effect.interruptible(Effect.exit(process.kill(signal))).pipe(Effect.timeoutOption(waitMillis))
  const running = Effect.orElseSucceed(process.isRunning, () => false)
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

/** @internal */
export const make = (
  options: StdioTransport.Options
): Effect.Effect<
  { readonly transport: McpTransport.McpTransport["Type"]; readonly logs: StdioTransport.Logs },
  never,
  CommandExecutor.CommandExecutor | Scope.Scope
> =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    const stderrLines = yield* PubSub.sliding<string>({ capacity: 1024, replay: 64 })
    yield* Effect.addFinalizer(() => PubSub.shutdown(stderrLines))

    const description = `stdio:${options.command}`
    const maxMessageBytes = options.maxMessageBytes ?? JsonRpc.defaultMaxMessageBytes
    const stdinGraceMillis = options.shutdown?.stdinGraceMillis ?? defaultStdinGraceMillis
    const termGraceMillis = options.shutdown?.termGraceMillis ?? defaultTermGraceMillis

    let command = Command.make(options.command, ...(options.args ?? [])).pipe(
      Command.env(environment.build(options.env, options.inheritEnv), { extendEnv: false })
    )
    if (options.cwd !== undefined) command = Command.workingDirectory(command, options.cwd)

    const publishStderr = (frame: LineSplitter.Frame, out: Array<string>) =>
      out.push(frame === LineSplitter.Overflow ? `[stderr line longer than ${maxStderrLineBytes} bytes dropped]` : frame)

    const connect = (
      permanentFailure: Deferred.Deferred<never, McpError.TransportError>
    ): Effect.Effect<McpTransport.Connection, McpError.TransportError, Scope.Scope> =>
      Effect.gen(function*() {
        const process = yield* executor.start(command).pipe(
          Effect.catchAll((cause) => {
            const { error, permanent } = startError(options, cause)
            return (permanent ? Deferred.fail(permanentFailure, error) : Effect.void).pipe(
              Effect.zipRight(Effect.fail(error))
            )
          })
        )
        const stdin = yield* Queue.unbounded<Uint8Array>()
        let closed: McpError.TransportError | undefined
        const close = (why: string) => {
          if (closed === undefined) {
            closed = new McpError.TransportError({ reason: "Write", message: `${description}: ${why}` })
          }
        }

        yield* Stream.fromQueue(stdin).pipe(
          Stream.takeWhile((bytes) => bytes !== endOfInput),
          Stream.run(process.stdin),
          Effect.catchAll((error) => Effect.sync(() => close(`cannot write to the server (${describeCause(error)})`))),
          Effect.forkScoped
        )
        yield* LineSplitter.splitStream(process.stderr, maxStderrLineBytes, publishStderr).pipe(
          Stream.runForEach((line) => Effect.zipRight(PubSub.publish(stderrLines, line), Effect.logDebug(line))),
          Effect.ignore,
          Effect.annotateLogs({ "mcp.server": description, "mcp.stream": "stderr" }),
          Effect.forkScoped
        )
        yield* Effect.exit(process.exitCode).pipe(
          Effect.flatMap((exit) => {
            const status = Exit.isSuccess(exit) ? `with code ${exit.value}` : "on a signal"
            close(`the server process exited ${status}`)
            return Effect.logDebug(`stdio server process ${process.pid} exited ${status}`)
          }),
          Effect.annotateLogs("mcp.server", description),
          Effect.forkScoped
        )
        // added last so it runs first, before the fibers above are interrupted
        // and before the executor's own release (which waits forever)
        yield* Effect.addFinalizer(() =>
          shutdown(
            process,
            Effect.sync(() => {
              close("the connection is closed")
              stdin.unsafeOffer(endOfInput)
            }),
            stdinGraceMillis,
            termGraceMillis
          ).pipe(Effect.annotateLogs("mcp.server", description))
        )

        const incoming = Ndjson.decodeStream(process.stdout, maxMessageBytes).pipe(
          Stream.mapError((error) =>
            new McpError.TransportError({
              reason: "Read",
              message: `${description}: cannot read the server's output (${describeCause(error)})`
            })
          ),
          // before the end (or failure) reaches the reader, so a send right after it fails
          Stream.onEnd(Effect.sync(() => close("the server closed its output"))),
          Stream.tapError(() => Effect.sync(() => close("the server's output broke")))
        )

        const send = (message: JsonRpc.Message): Effect.Effect<void, McpError.TransportError> =>
          Effect.suspend(() => {
            if (closed !== undefined) return Effect.fail(closed)
            stdin.unsafeOffer(Ndjson.encode(message))
            return Effect.void
          })

        yield* Effect.logDebug(`stdio server process ${process.pid} started`).pipe(
          Effect.annotateLogs("mcp.server", description)
        )
        return { incoming, send, description }
      })

    const connections = Stream.unwrap(
      Effect.map(
        Deferred.make<never, McpError.TransportError>(),
        (permanentFailure) =>
          McpTransport.fromConnect(connect(permanentFailure), options.reconnect).pipe(
            Stream.interruptWhenDeferred(permanentFailure)
          )
      )
    )

    return {
      transport: { connections },
      logs: { lines: Stream.fromPubSub(stderrLines), subscribe: PubSub.subscribe(stderrLines) }
    }
  })
