import * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import type * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Body from "./body.js"

type Failure = McpTransport.ConnectionError

/**
 * The sends of one connection, each in one fiber that posts the message and
 * then reads its answer: the send ends when the server accepted the message
 * (the send calls `accepted`), the fiber goes on reading the answer, and a
 * body it reads is released when the fiber ends (`own`). One fiber per message,
 * not one to post, two to race the connection's end and one to read.
 *
 * - A send still waiting when the connection fails ends with the
 *   connection's error, and its HTTP request is aborted (`failWaiting`).
 * - Interrupting a waiting send aborts its HTTP request; once `accepted` was called,
 *   the answer is read on whatever the sender does.
 * - `start` is `run` for a caller that does not wait (the session's
 *   `sendNow`, from plain code on the caller's fiber): a send that failed
 *   before the server accepted the message is reported to `onFailure`.
 * - `abandon(key)` (the caller gave up: the session's `Connection.cancel`
 *   of the request posted under `key`, its id) aborts the send while it still waits, and
 *   once the server accepted it, stops the reading of its answer: the
 *   response stream is closed and its HTTP connection freed (a server may
 *   never answer a cancelled request). A POST carries one message, so no
 *   other request rides on that stream.
 * - `fork` runs a background fiber of the connection (a GET stream); one
 *   forked with a key (the re-posted listen request of protocol 2026-07-28,
 *   reading its answer) is what `abandon` stops for that key.
 * - `close` (the connection's scope closes) interrupts every fiber, the
 *   ones reading answers and the background ones too, and fails later
 *   sends at once.
 *
 * @internal
 */
export interface Sends {
  readonly run: <E>(
    send: (sending: Sending) => Effect.Effect<void, E>,
    key?: unknown
  ) => Effect.Effect<void, E | Failure>
  readonly start: (
    key: unknown,
    send: (sending: Sending) => Effect.Effect<void, Failure>,
    onFailure: (error: Failure) => void
  ) => boolean
  readonly abandon: (key: unknown) => void
  readonly fork: (effect: Effect.Effect<void>, key?: unknown) => Effect.Effect<void>
  readonly failWaiting: (error: Failure) => Effect.Effect<void>
  readonly close: (error: Failure) => Effect.Effect<void>
}

/**
 * What a send is given: `accepted()` once the server accepted its message;
 * as a `Body.Owner`, it releases a body read on the send's own fiber when
 * that fiber ends, however it ends (see `Body.read`).
 *
 * @internal
 */
export interface Sending extends Body.Owner {
  readonly accepted: () => void
}

interface Waiting extends Sending {
  exit: Exit.Exit<void, unknown> | undefined
  readonly resume: (exit: Exit.Exit<void, unknown>) => void
  fiber: Fiber.RuntimeFiber<void, unknown> | undefined
  /** for `start`: what `abandon` finds it by */
  readonly key: unknown
  /** what `own` was given, run when the fiber ends */
  release: (() => void) | undefined
}

/**
 * Every fiber of the connection is made from the fiber running when it is
 * asked for (its context and fiber refs, as a fork of it would have them,
 * but with the default runtime flags: interruptible), owned by the
 * connection, with `setRefs` applied (the settings every request of the
 * connection runs with: see `RequestRefs`), and started at once, on that
 * stack, up to its first wait: an HTTP request is on its way when `run`,
 * `start` or `fork` returns. A send that dies (a bug) fails with a typed
 * error, and the defect is logged.
 *
 * @internal
 */
export const make = (
  setRefs: (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime) => FiberRefs.FiberRefs
): Sends => {
  const waiting = new Set<Waiting>()
  /** the fibers reading the answer of a message posted with a key (a send's, once the server accepted it) */
  const reading = new Map<unknown, Fiber.RuntimeFiber<void, unknown>>()
  const running = new Set<Fiber.RuntimeFiber<void, unknown>>()
  let closed: Failure | undefined

  const settle = (entry: Waiting, exit: Exit.Exit<void, unknown>) => {
    if (entry.exit !== undefined) return
    entry.exit = exit
    waiting.delete(entry)
    entry.resume(exit)
  }

  /** `undefined` once closed, or outside any fiber */
  const spawn = (effect: Effect.Effect<void, unknown>, entry?: Waiting) => {
    const caller = Fiber.getCurrentFiber()
    if (closed !== undefined || Option.isNone(caller)) return undefined
    const runtime = Runtime.make({
      context: caller.value.currentContext,
      fiberRefs: caller.value.getFiberRefs(),
      runtimeFlags: Runtime.defaultRuntimeFlags
    })
    const fiber = Runtime.runFork(runtime, effect, { updateRefs: setRefs })
    running.add(fiber)
    fiber.addObserver((exit) => {
      running.delete(fiber)
      if (entry !== undefined) {
        if (reading.get(entry.key) === fiber) reading.delete(entry.key)
        entry.release?.()
        settle(entry, exit)
      }
    })
    if (entry !== undefined) {
      entry.fiber = fiber
      // accepted before `runFork` returned (the POST was answered at once): its answer is being read
      if (
        entry.exit !== undefined && Exit.isSuccess(entry.exit) && entry.key !== undefined && fiber.unsafePoll() === null
      ) {
        reading.set(entry.key, fiber)
      }
    }
    return fiber
  }

  /** a send, waiting from now on until the server accepted its message; `undefined` once closed */
  const launch = <E>(
    key: unknown,
    send: (sending: Sending) => Effect.Effect<void, E>,
    resume: (exit: Exit.Exit<void, unknown>) => void
  ): Waiting | undefined => {
    const entry: Waiting = {
      exit: undefined,
      resume,
      fiber: undefined,
      key,
      release: undefined,
      accepted: () => {
        if (entry.exit !== undefined) return
        settle(entry, Exit.void)
        // (its fiber, running, reads the answer from now on)
        if (key !== undefined && entry.fiber !== undefined) reading.set(key, entry.fiber)
      },
      // (a send reads one body)
      own: (release) => entry.release = release
    }
    waiting.add(entry)
    if (spawn(Effect.catchAllCause(send(entry), typed), entry)) return entry
    waiting.delete(entry)
  }

  const abort = (entry: Waiting) => {
    if (entry.exit !== undefined) return
    waiting.delete(entry)
    entry.exit = Exit.interrupt(FiberId.none)
    entry.fiber?.unsafeInterruptAsFork(FiberId.none)
  }

  // (a send that fails the connection itself is not interrupted: it ends with its own error)
  const failWaiting = (error: Failure) =>
    Effect.withFiberRuntime<void>((self) => {
      for (const entry of [...waiting]) {
        settle(entry, Exit.fail(error))
        if (entry.fiber !== self) entry.fiber?.unsafeInterruptAsFork(FiberId.none)
      }
      return Effect.void
    })

  return {
    run: <E>(send: (sending: Sending) => Effect.Effect<void, E>, key?: unknown) =>
      Effect.async<void, E | Failure>((resume) => {
        const entry = launch(key, send, resume as (exit: Exit.Exit<void, unknown>) => void)
        if (entry === undefined) return resume(Effect.fail(closed!))
        // given up before the message was accepted: its HTTP request is aborted
        return Effect.sync(() => abort(entry))
      }),
    start: (key, send, onFailure) =>
      !!launch(key, send, (exit) => {
        if (Exit.isFailure(exit)) Option.map(Cause.failureOption(exit.cause as Cause.Cause<Failure>), onFailure)
      }),
    // (rare: a request given up on) a send still being posted is aborted; one whose answer is being read stops
    // reading it, which closes its response stream (an SSE stream the server may never end: its connection is freed)
    abandon: (key) => {
      if (key === undefined) return
      for (const entry of waiting) if (entry.key === key) return abort(entry)
      const fiber = reading.get(key)
      if (fiber === undefined) return
      reading.delete(key)
      fiber.unsafeInterruptAsFork(FiberId.none)
    },
    fork: (effect, key) =>
      Effect.sync(() => {
        const fiber = spawn(effect)
        if (fiber === undefined || key === undefined) return
        // read as an accepted send's answer is: `abandon` stops it
        reading.set(key, fiber)
        fiber.addObserver(() => {
          if (reading.get(key) === fiber) reading.delete(key)
        })
      }),
    failWaiting,
    close: (error) =>
      Effect.suspend(() => {
        closed ??= error
        return Effect.zipRight(failWaiting(error), Fiber.interruptAll([...running]))
      })
  }
}

const died = "mcp http: a send died (a bug; logged)"

const typed = <E>(cause: Cause.Cause<E>): Effect.Effect<never, E | McpError.TransportError> =>
  Cause.isDie(cause) ?
    Effect.zipRight(
      Effect.logError(died, cause),
      Effect.fail(new McpError.TransportError({ reason: "Write", phase: "post", message: died }))
    ) :
    Effect.failCause(cause)
