import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as StdioError from "../StdioError.js"
import type * as StdioTransport from "../StdioTransport.js"
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

/** What every connection of one transport shares: its options, resolved once. */
interface Settings {
  readonly description: string
  readonly maxMessageBytes: number
  readonly incomingCapacity: number
  readonly stdinHighWaterBytes: number
  readonly stdinGraceMillis: number
  readonly termGraceMillis: number
  readonly env: Readonly<Record<string, string>>
  readonly args: ReadonlyArray<string>
  readonly logHub: Stderr.LogHub
  /** Masks the configured secrets in a stderr line. */
  readonly mask: (line: string) => string
}

const stderrLine = (frame: LineSplitter.Frame) =>
  frame === LineSplitter.Overflow ? `[stderr line longer than ${maxStderrLineBytes} bytes dropped]` : frame

/**
 * One connection: a server process and what reads and writes it, as one
 * object whose methods read its fields (an idle session holds the object
 * and the callbacks Node and the session need, not a closure per
 * operation). `send` and `sendNow` are functions of their own: the session
 * calls them unbound. What stdout carries goes into `inbound`, the core's
 * buffer, which the session listens to.
 */
class StdioConnection implements McpTransport.Connection {
  readonly description: string
  readonly networkTransport = "pipe"
  process: Process = undefined as never
  closed: McpError.TransportError | undefined
  // made when a sender first waits for room, and completed when `closed` is set, to wake it
  closing: Deferred.Deferred<void> | undefined
  // stderr is split, kept, published and logged in the callback that reads it: no stream per connection;
  // made by the first stderr output (many servers write none): ~0.8 KiB an idle session keeps otherwise
  tail: Stderr.Tail | undefined
  stderrSplitter: LineSplitter.LineSplitter | undefined
  // whether stderr ended, and who waits for it (at most the one fiber that saw stdout end)
  stderrDone = false
  onStderrEnd: (() => void) | undefined
  readonly stderrFrames: Array<LineSplitter.Frame> = []
  outbox: Outbox.Outbox = undefined as never
  // one watcher for every waiting sender (not a "drain" listener each); it ends with the connection
  roomGate: Deferred.Deferred<void> | undefined
  readonly inbound: McpTransport.InboundBuffer

  constructor(
    readonly settings: Settings,
    readonly scope: Scope.Scope,
    /** What the callbacks need to log, see `forLogging`. */
    readonly runtime: Runtime.Runtime<never>
  ) {
    this.description = settings.description
    this.inbound = McpTransport.makeInboundBuffer(settings.incomingCapacity)
  }

  close(why: string): void {
    if (this.closed === undefined) {
      this.closed = new McpError.TransportError({ reason: "Write", message: `${this.description}: ${why}` })
      if (this.closing !== undefined) Deferred.unsafeDone(this.closing, Effect.void)
    }
  }

  /** Starts reading the process once it runs. */
  started(process: Process): void {
    this.process = process
    // a backend that batches its writes itself takes each line at once
    this.outbox = process.batchesWrites === true ?
      Outbox.direct((line) => process.write(line)) :
      Outbox.make((text) => process.write(text), Math.min(Outbox.defaultBatchChars, this.settings.stdinHighWaterBytes))
  }

  /**
   * Reads stdout into `inbound` until the output ends (then the buffer ends
   * with why) or the connection's scope closes. A backend that can listens
   * in callbacks: no fiber waits on an idle connection, one runs the end.
   */
  readStdout(): Effect.Effect<void> {
    const process = this.process
    const framing = new Framing(this)
    const listenStdout = process.listenStdout
    if (listenStdout === undefined) {
      return Effect.asVoid(Effect.forkIn(
        Effect.matchEffect(process.readStdout(framing.onBytes), {
          onSuccess: () => framing.finish(undefined),
          onFailure: (failure) => framing.finish(failure)
        }),
        this.scope
      ))
    }
    return Effect.suspend(() => {
      // the end is framed in a fiber of the connection's scope (it waits for the exit status)
      const stop = listenStdout.call(
        process,
        framing.onBytes,
        (failure) => Runtime.runSync(this.runtime, Effect.forkIn(framing.finish(failure), this.scope))
      )
      return Scope.addFinalizerExit(this.scope, () => Effect.sync(stop))
    })
  }

  logStderr(lines: ReadonlyArray<string>): Effect.Effect<void> {
    const logHub = this.settings.logHub
    return Effect.forEach(lines, (line) => Effect.zipRight(logHub.publish(line), Effect.logDebug(line)), {
      discard: true
    }).pipe(
      Effect.annotateLogs({ "mcp.server": this.description, "mcp.stream": "stderr" })
    )
  }

  flushStderr(): void {
    if (this.stderrFrames.length === 0) return
    const mask = this.settings.mask
    const lines = this.stderrFrames.map((frame) => mask(stderrLine(frame)))
    this.stderrFrames.length = 0
    const tail = this.tail ??= Stderr.makeTail()
    for (const line of lines) tail.add(line)
    Runtime.runSync(this.runtime, this.logStderr(lines))
  }

  stderrBytes(bytes: Uint8Array): void {
    ;(this.stderrSplitter ??= LineSplitter.make(maxStderrLineBytes)).push(bytes, this.stderrFrames)
    this.flushStderr()
  }

  stderrEnd(): void {
    this.stderrSplitter?.end(this.stderrFrames)
    this.flushStderr()
    this.stderrDone = true
    this.onStderrEnd?.()
  }

  get stderrEnded(): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      if (this.stderrDone) return resume(Effect.void)
      this.onStderrEnd = () => resume(Effect.void)
      return Effect.sync(() => this.onStderrEnd = undefined)
    })
  }

  exitedWith(status: ExitStatus): void {
    this.close(`the server process exited ${describeExit(status)}`)
    Runtime.runSync(
      this.runtime,
      Effect.logDebug(`stdio server process ${this.process.pid} exited ${describeExit(status)}`).pipe(
        Effect.annotateLogs("mcp.server", this.description)
      )
    )
  }

  /** The shutdown ladder (built when it runs: its steps would be ~1 KiB per idle session until then). */
  shutdown(): Effect.Effect<void> {
    return shutdown(
      this.process,
      Effect.suspend(() => {
        this.close("the connection is closed")
        this.outbox.flush()
        return this.process.endInput
      }),
      this.settings.stdinGraceMillis,
      this.settings.termGraceMillis
    ).pipe(Effect.annotateLogs("mcp.server", this.description))
  }

  /** The error that ends the connection when the server is gone, quoting its last stderr lines. */
  exitedError(status: ExitStatus): McpError.TransportError {
    const stderrTail = this.tail?.lines() ?? []
    const message = `${this.description}: the server exited ${describeExit(status)}` +
      (stderrTail.length > 0 ? `; its last stderr output:\n${stderrTail.join("\n")}` : "; it wrote nothing on stderr")
    return new McpError.TransportError({
      reason: "Closed",
      message,
      cause: new StdioError.ServerExited({
        pid: this.process.pid,
        ...(status._tag === "Code" ? { exitCode: status.code } : { signal: status.signal }),
        stderrTail,
        message
      })
    })
  }

  // stdout ended: normally the process is exiting; if so, the connection fails with why
  stdoutEnded(): Effect.Effect<void, McpError.TransportError> {
    const connection = this
    return Effect.gen(function*() {
      const status = yield* Effect.timeoutOption(connection.process.exited, exitWaitMillis)
      if (Option.isNone(status)) {
        connection.close("the server closed its output")
        return
      }
      yield* Effect.timeoutOption(connection.stderrEnded, stderrWaitMillis)
      const error = connection.exitedError(status.value)
      connection.close(`the server process exited ${describeExit(status.value)}`)
      return yield* Effect.fail(error)
    })
  }

  // below the high-water mark, a message is queued for the end of the tick at once
  readonly sendNow = (message: JsonRpc.Message): boolean => {
    if (this.closed !== undefined || !this.process.hasRoom()) return false
    this.outbox.add(Ndjson.encode(message))
    return true
  }

  watchRoom(gate: Deferred.Deferred<void>, closing: Deferred.Deferred<void>): Effect.Effect<void> {
    return Effect.raceFirst(this.process.writable, Deferred.await(closing)).pipe(
      Effect.ensuring(Effect.sync(() => {
        this.roomGate = undefined
        Deferred.unsafeDone(gate, Effect.void)
      }))
    )
  }

  get waitForRoom(): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.roomGate !== undefined) return Deferred.await(this.roomGate)
      const gate = this.roomGate = Deferred.unsafeMake<void>(FiberId.none)
      if (this.closing === undefined) {
        this.closing = Deferred.unsafeMake<void>(FiberId.none)
        // closed since `send` looked: the watcher ends at once
        if (this.closed !== undefined) Deferred.unsafeDone(this.closing, Effect.void)
      }
      return Effect.zipRight(Effect.forkIn(this.watchRoom(gate, this.closing), this.scope), Deferred.await(gate))
    })
  }

  // past the high-water mark, a send waits until the server has read enough, then writes;
  // woken senders check again: those that find the buffer full again wait for the next room
  readonly send = (message: JsonRpc.Message): Effect.Effect<void, McpError.TransportError> =>
    Effect.suspend(() =>
      this.closed !== undefined ?
        Effect.fail(this.closed) :
        this.sendNow(message) ?
        Effect.void :
        Effect.zipRight(this.waitForRoom, this.send(message))
    )
}

/**
 * stdout framed and decoded as it arrives, and handed on in the same callback: `onBytes`
 * for each chunk (`true` once a line was too long: nothing after it is read), and the
 * end, for how the output ended (a failure's reason).
 */
class Framing {
  readonly splitter: LineSplitter.LineSplitter
  readonly frames: Array<LineSplitter.Frame> = []
  // a line over the limit: the framing can no longer be trusted, the connection is over
  tooLarge: McpError.TransportError | undefined
  // messages the inbound buffer had no room for (the session is not listening yet): stdout is paused
  // until they are taken
  held: Array<JsonRpc.Incoming> | undefined

  constructor(readonly connection: StdioConnection) {
    this.splitter = LineSplitter.make(connection.settings.maxMessageBytes)
  }

  /** Hands messages to the inbound buffer; when it is full, holds them and pauses stdout until it has room. */
  deliver(messages: Array<JsonRpc.Incoming>): void {
    if (this.held !== undefined) {
      for (const message of messages) this.held.push(message)
      return
    }
    const connection = this.connection
    if (connection.inbound.offerNow(messages)) return
    this.held = messages
    connection.process.pauseStdout()
    Runtime.runSync(connection.runtime, Effect.forkIn(this.release, connection.scope))
  }

  /** Offers what is held once the buffer has room, then reads on. */
  get release(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const held = this.held
      if (held === undefined) return Effect.void
      return Effect.zipRight(
        this.connection.inbound.offer(held),
        Effect.sync(() => {
          this.held = undefined
          this.connection.process.resumeStdout()
        })
      )
    })
  }

  /** The output ended: the buffer ends with why, after every message read before. */
  finish(failure: string | undefined): Effect.Effect<void> {
    const inbound = this.connection.inbound
    return Effect.flatMap(Effect.exit(this.end(failure)), (exit) =>
      Effect.zipRight(
        this.release,
        Effect.sync(() =>
          inbound.end(
            exit._tag === "Success" ? undefined : Option.getOrElse(
              Cause.failureOption(exit.cause),
              () =>
                new McpError.TransportError({
                  reason: "Read",
                  message: `${this.connection.description}: reading the server's output failed unexpectedly`,
                  cause: Cause.squash(exit.cause)
                })
            )
          )
        )
      ))
  }

  /** Hands on what is framed; `true` once a line was too long. */
  flush(): boolean {
    const frames = this.frames
    if (frames.length === 0) return false
    const maxMessageBytes = this.connection.settings.maxMessageBytes
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
    if (out.length > 0) this.deliver(out)
    if (broken) {
      const why = `the server sent a line longer than the limit of ${maxMessageBytes} bytes`
      this.connection.close(why)
      this.tooLarge = new McpError.TransportError({
        reason: "Read",
        phase: "message-size",
        message: `${this.connection.description}: ${why}`
      })
    }
    return broken
  }

  // a function of its own: the backend calls it unbound
  readonly onBytes = (bytes: Uint8Array): boolean => {
    this.splitter.push(bytes, this.frames)
    return this.flush()
  }

  end(failure: string | undefined): Effect.Effect<void, McpError.TransportError> {
    if (failure !== undefined) {
      this.connection.close("the server's output broke")
      return Effect.fail(
        new McpError.TransportError({
          reason: "Read",
          message: `${this.connection.description}: cannot read the server's output (${failure})`
        })
      )
    }
    if (this.tooLarge !== undefined) return Effect.fail(this.tooLarge)
    this.splitter.end(this.frames)
    this.flush()
    return this.connection.stdoutEnded()
  }
}

/**
 * One run (session) of the transport: its own `giveUp`, and the connect
 * effect built for each attempt (a session holds the object, not the
 * effect's steps).
 */
class Connector<R> implements McpTransport.Connector {
  readonly giveUp = Deferred.unsafeMake<never, McpError.TransportError>(FiberId.none)
  constructor(
    readonly connectWith: (
      permanentFailure: Deferred.Deferred<never, McpError.TransportError>
    ) => Effect.Effect<McpTransport.Connection, McpError.TransportError, R | Scope.Scope>,
    readonly context: Context.Context<R>,
    readonly reconnect: McpTransport.ReconnectOptions | undefined
  ) {}

  get connect(): Effect.Effect<McpTransport.Connection, McpError.TransportError, Scope.Scope> {
    return Effect.provide(this.connectWith(this.giveUp), this.context)
  }
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
    yield* Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizerExit(scope, () => logHub.shutdown))

    const stdinHighWaterBytes = options.stdinHighWaterBytes ?? defaultStdinHighWaterBytes
    const settings: Settings = {
      description: `stdio:${options.command}`,
      maxMessageBytes: options.maxMessageBytes ?? JsonRpc.defaultMaxMessageBytes,
      incomingCapacity: options.incomingCapacity ?? defaultIncomingCapacity,
      stdinHighWaterBytes,
      stdinGraceMillis: options.shutdown?.stdinGraceMillis ?? defaultStdinGraceMillis,
      termGraceMillis: options.shutdown?.termGraceMillis ?? defaultTermGraceMillis,
      env: environment.build(options.env, options.inheritEnv),
      args: options.args ?? [],
      mask: Stderr.masker(options.env, options.secrets),
      logHub
    }

    const connect = (
      permanentFailure: Deferred.Deferred<never, McpError.TransportError>
    ): Effect.Effect<McpTransport.Connection, McpError.TransportError, R | Scope.Scope> =>
      Effect.gen(function*() {
        const connection = new StdioConnection(
          settings,
          yield* Effect.scope,
          yield* Effect.map(Effect.runtime<never>(), forLogging)
        )
        const process = yield* backend({
          command: options.command,
          args: settings.args,
          env: settings.env,
          cwd: options.cwd,
          stdinHighWaterBytes,
          onWriteError: (reason) => connection.close(`cannot write to the server (${reason})`)
        }).pipe(
          Effect.catchAll(({ error, permanent }) =>
            (permanent ? Deferred.fail(permanentFailure, error) : Effect.void).pipe(Effect.zipRight(Effect.fail(error)))
          )
        )
        connection.started(process)
        yield* connection.readStdout()
        // callbacks, not fibers waiting for the end: an idle session pays for every fiber
        yield* process.readStderr((bytes) => connection.stderrBytes(bytes), () => connection.stderrEnd())
        yield* process.onExit((status) => connection.exitedWith(status))
        // added last so it runs first, before the fibers above are interrupted and before a backend's own
        // release (a finalizer function of its own: `Scope.addFinalizer` would wrap it in one more closure)
        yield* Scope.addFinalizerExit(connection.scope, () => connection.shutdown())
        yield* Effect.logDebug(`stdio server process ${process.pid} started`).pipe(
          Effect.annotateLogs("mcp.server", settings.description)
        )
        return connection
      })

    // the backend's services, but not this layer's scope: each connection has its own
    const context = backendContext(yield* Effect.context<R | Scope.Scope>())
    const transport = McpTransport.make(() => new Connector(connect, context, options.reconnect))

    return {
      transport,
      logs: Stderr.logsOf(logHub)
    }
  })
