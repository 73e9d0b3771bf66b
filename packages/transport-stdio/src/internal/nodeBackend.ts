import * as McpError from "@mcp-effect/core/McpError"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import type { Backend, ExitStatus, Process, Signal, StartFailure, StartOptions } from "./backend.js"
import { isWindows } from "./environment.js"

const startError = (options: StartOptions, error: NodeJS.ErrnoException): StartFailure => {
  const prefix = `could not start "${options.command}"`
  const permanent = error.code === "ENOENT" || error.code === "EACCES"
  const what = error.code === "ENOENT" ? "command not found" : error.code === "EACCES" ? "permission denied" : ""
  return {
    error: new McpError.TransportError({
      reason: "Connect",
      phase: "spawn",
      message: `${prefix}: ${what ? `${what} (${error.code})` : error.message}`
    }),
    permanent
  }
}

const missingCwd = (options: StartOptions): StartFailure | undefined => {
  if (options.cwd === undefined) return undefined
  try {
    if (Fs.statSync(options.cwd).isDirectory()) return undefined
  } catch {
    // reported below
  }
  return {
    error: new McpError.TransportError({
      reason: "Connect",
      phase: "spawn",
      message: `could not start "${options.command}": the working directory "${options.cwd}" is not accessible`
    }),
    permanent: true
  }
}

/**
 * One server process, as one object whose methods read its fields: an idle
 * session holds the object and the listeners Node needs, not a closure per
 * operation.
 */
class NodeProcess implements Process {
  readonly pid: number
  // the exit is a status and its listeners, not a `Deferred` (an idle session pays for each object it keeps)
  status: ExitStatus | undefined = undefined
  // made when something first waits for the exit: an array (most processes have one listener, the transport's)
  exitListeners: Array<(status: ExitStatus) => void> | undefined
  writeFailed = false

  constructor(readonly child: ChildProcess.ChildProcessWithoutNullStreams, readonly options: StartOptions) {
    this.pid = child.pid!
    child.stdin.on("error", (error) => this.stdinFailed(error))
  }

  exitedWith(code: number | null, signal: NodeJS.Signals | null): void {
    const ended: ExitStatus = code !== null ? { _tag: "Code", code } : { _tag: "Signal", signal: signal ?? "a signal" }
    this.status = ended
    const listeners = this.exitListeners
    this.exitListeners = undefined
    if (listeners !== undefined) { for (const listener of listeners) listener(ended) }
  }

  removeExitListener(listener: (status: ExitStatus) => void): void {
    const listeners = this.exitListeners
    const at = listeners === undefined ? -1 : listeners.indexOf(listener)
    if (at >= 0) listeners!.splice(at, 1)
  }

  stdinFailed(error: Error): void {
    if (this.writeFailed) return
    this.writeFailed = true
    this.options.onWriteError(error.message)
  }

  signalGroup(signal: Signal): void {
    try {
      if (isWindows) this.child.kill(signal)
      else process.kill(-this.child.pid!, signal)
    } catch {
      // the group is gone
      this.child.kill(signal)
    }
  }

  write(line: string): void {
    const stdin = this.child.stdin
    if (!this.writeFailed && stdin.writable) stdin.write(line)
  }

  hasRoom(): boolean {
    const stdin = this.child.stdin
    return this.writeFailed || !stdin.writable || stdin.writableLength < this.options.stdinHighWaterBytes
  }

  // past the stream's own high-water mark (smaller than ours), "drain" is sure to come
  get writable(): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      if (this.hasRoom()) return resume(Effect.void)
      const stdin = this.child.stdin
      const done = () => {
        stdin.off("drain", done)
        stdin.off("close", done)
        resume(Effect.void)
      }
      stdin.on("drain", done)
      stdin.on("close", done)
      return Effect.sync(() => {
        stdin.off("drain", done)
        stdin.off("close", done)
      })
    })
  }

  get endInput(): Effect.Effect<void> {
    return Effect.sync(() => {
      this.child.stdin.end()
    })
  }

  readStdout(onBytes: (bytes: Uint8Array) => boolean): Effect.Effect<void, string> {
    return Effect.async<void, string>((resume) =>
      Effect.sync(
        this.listenStdout(onBytes, (failure) => resume(failure === undefined ? Effect.void : Effect.fail(failure)))
      )
    )
  }

  // what comes after the reader stops (or is interrupted) is discarded, so the server never blocks
  listenStdout(onBytes: (bytes: Uint8Array) => boolean, onEnd: (failure: string | undefined) => void): () => void {
    return new StdoutListener(this.child.stdout, onBytes, onEnd).stop
  }

  pauseStdout(): void {
    this.child.stdout.pause()
  }

  resumeStdout(): void {
    this.child.stdout.resume()
  }

  readStderr(onBytes: (bytes: Uint8Array) => void, onEnd: () => void): Effect.Effect<void, never, Scope.Scope> {
    const stderr = this.child.stderr
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      onEnd()
    }
    return scoped(() => {
      stderr.on("data", onBytes)
      stderr.once("end", end)
      stderr.once("error", end)
    }, () => {
      stderr.off("data", onBytes)
      stderr.off("end", end)
      stderr.off("error", end)
    })
  }

  onExit(onExit: (status: ExitStatus) => void): Effect.Effect<void, never, Scope.Scope> {
    return scoped(() => {
      if (this.status !== undefined) onExit(this.status)
      else (this.exitListeners ??= []).push(onExit)
    }, () => this.removeExitListener(onExit))
  }

  get exited(): Effect.Effect<ExitStatus> {
    return Effect.async<ExitStatus>((resume) => {
      if (this.status !== undefined) return resume(Effect.succeed(this.status))
      const listener = (ended: ExitStatus) => resume(Effect.succeed(ended))
      ;(this.exitListeners ??= []).push(listener)
      return Effect.sync(() => this.removeExitListener(listener))
    })
  }

  get isRunning(): Effect.Effect<boolean> {
    return Effect.sync(() => this.status === undefined)
  }

  kill(signal: Signal): Effect.Effect<void> {
    return Effect.zipRight(Effect.sync(() => this.signalGroup(signal)), this.exited)
  }

  /** A safety net behind the transport's shutdown ladder, which normally runs first. */
  killIfRunning(): Effect.Effect<void> {
    if (this.status === undefined) this.signalGroup("SIGKILL")
    return Effect.void
  }
}

/**
 * A process's stdout handed to callbacks until it ends or `stop` is called,
 * as one object (an idle session holds it and the listeners Node needs).
 */
class StdoutListener {
  done = false

  constructor(
    readonly stdout: NodeJS.ReadableStream,
    readonly onBytes: (bytes: Uint8Array) => boolean,
    readonly onEnd: (failure: string | undefined) => void
  ) {
    stdout.on("data", this.onData)
    stdout.once("end", this.onClose)
    // the error listener stays (an "error" with none would be thrown); it does nothing once done
    stdout.once("error", this.onError)
  }

  // functions of their own: Node and the caller call them unbound
  readonly stop = (): void => {
    this.done = true
    this.stdout.resume()
    this.stdout.off("data", this.onData)
    this.stdout.off("end", this.onClose)
  }

  readonly onData = (bytes: Uint8Array): void => {
    if (this.onBytes(bytes)) this.end(undefined)
  }

  readonly onClose = (): void => this.end(undefined)

  readonly onError = (error: Error): void => this.end(error.message)

  end(failure: string | undefined): void {
    if (this.done) return
    this.stop()
    this.onEnd(failure)
  }
}

/** `release` runs when the caller's scope closes; registered before `acquire`, so nothing is left when interrupted between. */
const scoped = (acquire: () => void, release: () => void) =>
  Effect.flatMap(
    Effect.scope,
    (scope) => Effect.zipRight(Scope.addFinalizerExit(scope, () => Effect.sync(release)), Effect.sync(acquire))
  )

/**
 * Starts servers with Node's `child_process` directly: writes go straight to
 * the pipe and stdout chunks straight to the framer, with no stream stages
 * in between. The process leads its own group (`detached`), so signals
 * reach wrappers' children too.
 *
 * @internal
 */
export const nodeBackend: Backend<never> = (options) =>
  Effect.gen(function*() {
    const cwdFailure = missingCwd(options)
    if (cwdFailure) return yield* Effect.fail(cwdFailure)
    const started = yield* Effect.async<NodeProcess, StartFailure>((resume) => {
      const child = ChildProcess.spawn(options.command, [...options.args], {
        env: options.env,
        cwd: options.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: !isWindows,
        windowsHide: true
      })
      const started = new NodeProcess(child, options)
      child.once("exit", (code, signal) => started.exitedWith(code, signal))
      // the listeners let go of `resume` once the start is settled: the one left on the child
      // would otherwise keep the fiber that started it (ended long ago) for as long as the process runs
      let starting: typeof resume | undefined = resume
      const settle = (effect: Effect.Effect<NodeProcess, StartFailure>) => {
        const settleStart = starting
        starting = undefined
        settleStart?.(effect)
      }
      child.once("error", (error) => settle(Effect.fail(startError(options, error))))
      child.once("spawn", () => settle(Effect.succeed(started)))
    })
    // added to the scope itself: `Effect.addFinalizer` would keep a copy of this fiber's refs for as long as
    // the process runs
    yield* Scope.addFinalizerExit(yield* Effect.scope, () => started.killIfRunning())
    return started
  })
