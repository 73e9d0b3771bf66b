import * as McpError from "@mcp-effect/core/McpError"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import type { Backend, ExitStatus, Signal, StartFailure, StartOptions } from "./backend.js"
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
    // the exit is a status and its listeners, not a `Deferred` (an idle session pays for each object it keeps)
    let status: ExitStatus | undefined
    const exitListeners = new Set<(status: ExitStatus) => void>()
    const child = yield* Effect.async<ChildProcess.ChildProcessWithoutNullStreams, StartFailure>((resume) => {
      const child = ChildProcess.spawn(options.command, [...options.args], {
        env: options.env,
        cwd: options.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: !isWindows,
        windowsHide: true
      })
      child.once("exit", (code, signal) => {
        const ended: ExitStatus = code !== null ? { _tag: "Code", code } : { _tag: "Signal", signal: signal ?? "a signal" }
        status = ended
        for (const listener of exitListeners) listener(ended)
        exitListeners.clear()
      })
      // the listeners let go of `resume` once the start is settled: the one left on the child
      // would otherwise keep the fiber that started it (ended long ago) for as long as the process runs
      let starting: typeof resume | undefined = resume
      const settle = (effect: Effect.Effect<ChildProcess.ChildProcessWithoutNullStreams, StartFailure>) => {
        const settleStart = starting
        starting = undefined
        settleStart?.(effect)
      }
      child.once("error", (error) => settle(Effect.fail(startError(options, error))))
      child.once("spawn", () => settle(Effect.succeed(child)))
    })
    // a safety net behind the transport's shutdown ladder, which normally runs first (added to the
    // scope itself: `Effect.addFinalizer` would keep a copy of this fiber's refs for as long as the process runs)
    const scope = yield* Effect.scope
    yield* Scope.addFinalizer(scope, Effect.sync(() => status === undefined && signalGroup("SIGKILL")))
    /** `release` runs when the caller's scope closes; registered before `acquire`, so nothing is left when interrupted between. */
    const scoped = (acquire: () => void, release: () => void) =>
      Effect.flatMap(Effect.scope, (scope) => Effect.zipRight(Scope.addFinalizer(scope, Effect.sync(release)), Effect.sync(acquire)))
    const exited = Effect.async<ExitStatus>((resume) => {
      if (status !== undefined) return resume(Effect.succeed(status))
      const listener = (ended: ExitStatus) => resume(Effect.succeed(ended))
      exitListeners.add(listener)
      return Effect.sync(() => exitListeners.delete(listener))
    })
    let writeFailed = false
    child.stdin.on("error", (error) => {
      if (writeFailed) return
      writeFailed = true
      options.onWriteError(error.message)
    })

    const signalGroup = (signal: Signal) => {
      try {
        if (isWindows) child.kill(signal)
        else process.kill(-child.pid!, signal)
      } catch {
        // the group is gone
        child.kill(signal)
      }
    }
    const stdin = child.stdin
    // what comes after the reader stops (or is interrupted) is discarded, so the server never blocks
    const listenStdout = (onBytes: (bytes: Uint8Array) => boolean, onEnd: (failure: string | undefined) => void) => {
      const stdout = child.stdout
      let done = false
      // the error listener stays (an "error" with none would be thrown); it does nothing once done
      const stop = () => {
        done = true
        stdout.resume()
        stdout.off("data", onData)
        stdout.off("end", onClose)
      }
      const end = (failure: string | undefined) => {
        if (done) return
        stop()
        onEnd(failure)
      }
      const onData = (bytes: Uint8Array) => {
        if (onBytes(bytes)) end(undefined)
      }
      const onClose = () => end(undefined)
      stdout.on("data", onData)
      stdout.once("end", onClose)
      stdout.once("error", (error) => end(error.message))
      return stop
    }
    const hasRoom = () => writeFailed || !stdin.writable || stdin.writableLength < options.stdinHighWaterBytes
    return {
      pid: child.pid!,
      write: (line) => {
        if (!writeFailed && stdin.writable) stdin.write(line)
      },
      hasRoom,
      // past the stream's own high-water mark (smaller than ours), "drain" is sure to come
      writable: Effect.async<void>((resume) => {
        if (hasRoom()) return resume(Effect.void)
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
      }),
      endInput: Effect.sync(() => stdin.end()),
      readStdout: (onBytes) =>
        Effect.async<void, string>((resume) =>
          Effect.sync(listenStdout(onBytes, (failure) => resume(failure === undefined ? Effect.void : Effect.fail(failure))))
        ),
      listenStdout,
      pauseStdout: () => child.stdout.pause(),
      resumeStdout: () => child.stdout.resume(),
      readStderr: (onBytes, onEnd) => {
        let ended = false
        const end = () => {
          if (ended) return
          ended = true
          onEnd()
        }
        return scoped(() => {
          child.stderr.on("data", onBytes)
          child.stderr.once("end", end)
          child.stderr.once("error", end)
        }, () => {
          child.stderr.off("data", onBytes)
          child.stderr.off("end", end)
          child.stderr.off("error", end)
        })
      },
      onExit: (onExit) =>
        scoped(() => {
          if (status !== undefined) onExit(status)
          else exitListeners.add(onExit)
        }, () => exitListeners.delete(onExit)),
      exited,
      isRunning: Effect.sync(() => status === undefined),
      kill: (signal) => Effect.zipRight(Effect.sync(() => signalGroup(signal)), exited)
    }
  })
