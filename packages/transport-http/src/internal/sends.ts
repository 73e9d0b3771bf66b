import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"

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
  readonly fork: (effect: Effect.Effect<void>) => Effect.Effect<void>
  readonly failWaiting: (error: Failure) => Effect.Effect<void>
  readonly close: (error: Failure) => Effect.Effect<void>
}

interface Waiting {
  exit: Exit.Exit<void, unknown> | undefined
  resume: ((exit: Exit.Exit<void, unknown>) => void) | undefined
  fiber: Fiber.RuntimeFiber<void, unknown> | undefined
}

/**
 * `setup` runs first on every fiber (it sets the fiber refs every request
 * of the connection runs with: see `RequestRefs`).
 *
 * @internal
 */
export const make = (setup: Effect.Effect<void>): Sends => {
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
      const entry: Waiting = { exit: undefined, resume: undefined, fiber: undefined }
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
    fork,
    failWaiting,
    close: (error) =>
      Effect.suspend(() => {
        closed ??= error
        return Effect.zipRight(failWaiting(error), Fiber.interruptAll([...running]))
      })
  }
}
