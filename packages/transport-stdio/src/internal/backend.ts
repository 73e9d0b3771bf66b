import type * as McpError from "@mcp-effect/core/McpError"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** A signal the shutdown ladder sends to a server's process group. */
export type Signal = "SIGTERM" | "SIGKILL"

/** How a server process ended: its exit code, or the signal that killed it. */
export type ExitStatus =
  | { readonly _tag: "Code"; readonly code: number }
  | { readonly _tag: "Signal"; readonly signal: string }

/**
 * How many bytes may wait to be written to a server's stdin, by default,
 * before `Process.write` asks the caller to wait for `Process.writable`.
 */
export const defaultStdinHighWaterBytes = 64 * 1024

/** What it takes to start the server. */
export interface StartOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string | undefined
  readonly stdinHighWaterBytes: number
  /** Called at most once when writing to the server's stdin fails. */
  readonly onWriteError: (reason: string) => void
}

/** A failed start, and whether trying again can help. */
export interface StartFailure {
  readonly error: McpError.TransportError
  /** A missing or non-executable program, or a missing working directory, stays that way. */
  readonly permanent: boolean
}

/**
 * One started server process, as the transport needs it. The hot path
 * (`write`, `readStdout`) is callback based: every message of every call
 * passes here.
 */
export interface Process {
  readonly pid: number
  /** Queues one NDJSON line (with its newline) for the server's stdin; never blocks, never throws. */
  readonly write: (line: string) => void
  /**
   * Optional: `true` when the lines `write` queues within one tick reach
   * stdin together anyway (a backend whose writes wait for a fiber of its
   * own): the transport then hands each line over at once, without its
   * outbox (`outbox.ts`) in between.
   */
  readonly batchesWrites?: boolean | undefined
  /**
   * Whether fewer than `StartOptions.stdinHighWaterBytes` wait to be written
   * (or stdin is gone): when not, the caller waits for `writable` before
   * writing more.
   */
  readonly hasRoom: () => boolean
  /** Completes once fewer than the high-water mark of bytes wait to be written, or stdin is gone. */
  readonly writable: Effect.Effect<void>
  /** Ends the server's stdin once everything written so far is flushed. */
  readonly endInput: Effect.Effect<void>
  /**
   * Hands each stdout chunk to `onBytes` until the output ends, or until
   * `onBytes` returns `true` (the reader wants no more: the rest of the
   * output is discarded); fails with a reason when it breaks. `pauseStdout`
   * stops the chunks (the server then blocks on a full pipe) until
   * `resumeStdout`. Stopping from the callback costs no fiber waiting to
   * interrupt the read (an idle session pays for every such fiber).
   */
  readonly readStdout: (onBytes: (bytes: Uint8Array) => boolean) => Effect.Effect<void, string>
  /**
   * Optional: `readStdout` without a fiber waiting for the end. Hands each
   * chunk to `onBytes` as `readStdout` does and returns at once, with a
   * function that stops the reading (the rest of the output is discarded;
   * nothing is called after it). Calls `onEnd` once when the output ends
   * (`undefined`, also after `onBytes` returned `true`) or breaks (the
   * reason).
   */
  readonly listenStdout?:
    | ((onBytes: (bytes: Uint8Array) => boolean, onEnd: (failure: string | undefined) => void) => () => void)
    | undefined
  readonly pauseStdout: () => void
  readonly resumeStdout: () => void
  /**
   * Hands each stderr chunk to `onBytes` and calls `onEnd` once stderr ends
   * (or breaks: what broke it is not the transport's concern), until the
   * scope closes. It returns at once: a backend that can, listens without a
   * fiber waiting for the end (an idle session pays for every such fiber).
   */
  readonly readStderr: (
    onBytes: (bytes: Uint8Array) => void,
    onEnd: () => void
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Calls `onExit` once the process has exited (at once if it has), unless the scope closed before; returns at once. */
  readonly onExit: (onExit: (status: ExitStatus) => void) => Effect.Effect<void, never, Scope.Scope>
  /** Completes when the process has exited. */
  readonly exited: Effect.Effect<ExitStatus>
  readonly isRunning: Effect.Effect<boolean>
  /** Signals the process group (the process alone where groups are unknown) and waits for the exit, unbounded. */
  readonly kill: (signal: Signal) => Effect.Effect<void>
}

/** Starts server processes; the process lives as long as the scope. */
export type Backend<R> = (options: StartOptions) => Effect.Effect<Process, StartFailure, R | Scope.Scope>

/** "with code 3", "on SIGKILL" */
export const describeExit = (status: ExitStatus): string =>
  status._tag === "Code" ? `with code ${status.code}` : `on ${status.signal}`
