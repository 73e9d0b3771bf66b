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
import * as RuntimeFlags from "effect/RuntimeFlags"

type Failure = McpTransport.ConnectionError

/**
 * The sends of one connection, each in one fiber that posts the message and
 * then reads its answer: the send ends when the server accepted the message
 * (`sent`), the fiber goes on reading the answer. One fiber per message,
 * not one to post, two to race the connection's end and one to read.
 *
 * - A send still waiting when the connection fails ends with the
 *   connection's error, and its HTTP request is aborted (`failWaiting`).
 * - Interrupting a waiting send aborts its HTTP request; once `sent` ran,
 *   the answer is read on whatever the sender does.
 * - `start` is `run` for a caller that does not wait (the session's
 *   `sendNow`): it starts the fiber at once, from plain code on the
 *   caller's fiber, and reports a send that failed before the server
 *   accepted the message through `onFailure`. `abandon` (the caller gave
 *   up: the session cancels the request) aborts it while it still waits.
 * - `fork` runs a background fiber of the connection (a GET stream).
 * - `close` (the connection's scope closes) interrupts every fiber, the
 *   ones reading answers and the background ones too, and fails later
 *   sends at once.
 *
 * @internal
 */
export interface Sends {
  readonly run: <E>(
    send: (sent: Effect.Effect<void>) => Effect.Effect<void, E>
  ) => Effect.Effect<void, E | Failure>
  readonly start: (
    key: unknown,
    send: (sent: Effect.Effect<void>) => Effect.Effect<void, Failure>,
    onFailure: (error: Failure) => void
  ) => boolean
  readonly abandon: (key: unknown) => void
  readonly fork: (effect: Effect.Effect<void>) => Effect.Effect<void>
  readonly failWaiting: (error: Failure) => Effect.Effect<void>
  readonly close: (error: Failure) => Effect.Effect<void>
}

interface Waiting {
  exit: Exit.Exit<void, unknown> | undefined
  resume: ((exit: Exit.Exit<void, unknown>) => void) | undefined
  fiber: Fiber.RuntimeFiber<void, unknown> | undefined
  /** for `start`: what `abandon` finds it by */
  key: unknown
}

/**
 * `setup` runs first on every fiber of `run` and `fork`, and `setRefs` is
 * its pure form, applied when `start` makes its fiber (both set the fiber
 * refs every request of the connection runs with: see `RequestRefs`).
 *
 * @internal
 */
export const make = (
  setup: Effect.Effect<void>,
  setRefs: (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime) => FiberRefs.FiberRefs
): Sends => {
  const waiting = new Set<Waiting>()
  const running = new Set<Fiber.RuntimeFiber<void, unknown>>()
  let closed: Failure | undefined

  const settle = (entry: Waiting, exit: Exit.Exit<void, unknown>) => {
    if (entry.exit !== undefined) return
    entry.exit = exit
    waiting.delete(entry)
    const resume = entry.resume
    entry.resume = undefined
    resume?.(exit)
  }

  const run = <E>(send: (sent: Effect.Effect<void>) => Effect.Effect<void, E>): Effect.Effect<void, E | Failure> =>
    Effect.uninterruptibleMask((restore) => {
      if (closed !== undefined) return Effect.fail(closed)
      const entry: Waiting = { exit: undefined, resume: undefined, fiber: undefined, key: undefined }
      waiting.add(entry)
      const sent = Effect.sync(() => settle(entry, Exit.void))
      return Effect.flatMap(Effect.forkDaemon(Effect.interruptible(Effect.zipRight(setup, send(sent)))), (fiber) => {
        entry.fiber = fiber
        running.add(fiber)
        fiber.addObserver((exit) => {
          running.delete(fiber)
          settle(entry, exit)
        })
        return restore(Effect.async<void, E | Failure>((resume) => {
          if (entry.exit !== undefined) return resume(entry.exit as Exit.Exit<void, E>)
          entry.resume = resume as (exit: Exit.Exit<void, unknown>) => void
          // given up before the message was accepted: its HTTP request is aborted
          return Effect.suspend(() => {
            entry.resume = undefined
            if (entry.exit !== undefined) return Effect.void
            waiting.delete(entry)
            entry.exit = Exit.interrupt(FiberId.none)
            return Fiber.interrupt(fiber)
          })
        }))
      })
    })

  const start = (
    key: unknown,
    send: (sent: Effect.Effect<void>) => Effect.Effect<void, Failure>,
    onFailure: (error: Failure) => void
  ): boolean => {
    const caller = Fiber.getCurrentFiber()
    if (closed !== undefined || Option.isNone(caller)) return false
    const entry: Waiting = {
      exit: undefined,
      resume: (exit) => {
        if (Exit.isSuccess(exit)) return
        const failure = Cause.failureOption(exit.cause as Cause.Cause<Failure>)
        if (Option.isSome(failure)) return onFailure(failure.value)
        if (Cause.isInterruptedOnly(exit.cause)) return
        // a defect (a bug): the request fails with a typed error at once, and the defect is logged
        onFailure(died())
        Runtime.runFork(runtime, Effect.logError("mcp http: a POST died", exit.cause))
      },
      fiber: undefined,
      key
    }
    waiting.add(entry)
    // the caller's context and fiber refs (its span, logger, services), as a fiber forked from it would have
    const runtime = Runtime.make({
      context: caller.value.currentContext,
      fiberRefs: caller.value.getFiberRefs(),
      // (its flags, interruptible: the caller is in the session's uninterruptible registration)
      runtimeFlags: RuntimeFlags.enable(flagsOf(caller.value), RuntimeFlags.Interruption)
    })
    const sent = Effect.sync(() => settle(entry, Exit.void))
    // started at once, on this stack, up to the first wait (the HTTP request is on its way when this returns)
    const fiber = Runtime.runFork(runtime, send(sent), { updateRefs: setRefs })
    if (fiber.unsafePoll() === null) {
      entry.fiber = fiber
      running.add(fiber)
    }
    fiber.addObserver((exit) => {
      running.delete(fiber)
      settle(entry, exit)
    })
    return true
  }

  // (rare: a request given up on; the waiting sends are the ones still being posted)
  const abandon = (key: unknown) => {
    if (key === undefined) return
    for (const entry of waiting) {
      if (entry.key !== key) continue
      waiting.delete(entry)
      entry.exit = Exit.interrupt(FiberId.none)
      entry.fiber?.unsafeInterruptAsFork(FiberId.none)
      return
    }
  }

  const fork = (effect: Effect.Effect<void>): Effect.Effect<void> =>
    Effect.uninterruptible(Effect.suspend(() => {
      if (closed !== undefined) return Effect.void
      return Effect.map(Effect.forkDaemon(Effect.interruptible(Effect.zipRight(setup, effect))), (fiber) => {
        running.add(fiber)
        fiber.addObserver(() => running.delete(fiber))
      })
    }))

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
    run,
    start,
    abandon,
    fork,
    failWaiting,
    close: (error) =>
      Effect.suspend(() => {
        closed ??= error
        return Effect.zipRight(failWaiting(error), Fiber.interruptAll([...running]))
      })
  }
}

const died = () =>
  new McpError.TransportError({
    reason: "Write",
    phase: "post",
    message: "the HTTP transport failed unexpectedly while sending a request (the defect is logged)"
  })

/** A fiber's runtime flags as it runs now (the runtime keeps them on the fiber; the interface does not name them). */
const flagsOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): RuntimeFlags.RuntimeFlags =>
  (fiber as unknown as { readonly currentRuntimeFlags?: RuntimeFlags.RuntimeFlags }).currentRuntimeFlags ??
    Runtime.defaultRuntimeFlags
