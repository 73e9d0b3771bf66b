import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"

/** What the sweeper needs to know of a request with a deadline. */
export interface Timed {
  readonly idleMillis: number | undefined
  readonly totalMillis: number | undefined
  readonly startedAt: number
  /** Last time the request showed life (sent, progress): the idle budget counts from here. */
  lastActivity: number
}

const deadlineOf = (timed: Timed) =>
  Math.min(
    timed.idleMillis === undefined ? Infinity : timed.lastActivity + timed.idleMillis,
    timed.totalMillis === undefined ? Infinity : timed.startedAt + timed.totalMillis
  )

/** Which budget ran out first. */
export const expiredKind = (timed: Timed): "idle" | "total" =>
  timed.idleMillis !== undefined &&
    (timed.totalMillis === undefined || timed.lastActivity + timed.idleMillis <= timed.startedAt + timed.totalMillis) ?
    "idle" :
    "total"

/**
 * At most one fiber per session watches every request's deadline, instead of
 * a timer per request. It reads the deadlines from the caller's own table of
 * requests (`watched`), so a request costs no insert or removal here. The
 * fiber sleeps on the `Clock` until the earliest deadline (or, with none
 * left, the latest one it was shown; so `TestClock` drives it) and ends once
 * nothing is left to wait for: an idle session has none. A deadline earlier
 * than the one it sleeps towards replaces it with a fiber sleeping less long
 * (a sleep cannot be shortened, and a race of the sleep with a wake-up signal
 * would cost two more fibers all the time).
 *
 * @internal
 */
export const makeSweeper = <T extends Timed>(
  clock: Clock.Clock,
  watched: () => Iterable<T>,
  expire: (timed: T) => void
): Effect.Effect<
  {
    readonly watch: (timed: T) => void
    /** Whether a fiber sleeps towards a deadline now (for tests). */
    readonly sleeping: () => boolean
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    let sleeper: Fiber.RuntimeFiber<void> | undefined
    let sleepingUntil = Infinity
    let latestDeadline = -Infinity
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        const fiber = sleeper
        sleeper = undefined
        return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
      })
    )

    /** Expires what is due; the time to wake next, `Infinity` for never. */
    const sweep = (now: number) => {
      let next = Infinity
      for (const timed of watched()) {
        const deadline = deadlineOf(timed)
        if (deadline <= now) {
          expire(timed)
        } else if (deadline < next) {
          next = deadline
        }
      }
      // with nothing left to watch it still sleeps towards the latest deadline it was shown: requests
      // that finish before the sweeper runs must not make every later request start it again
      return next === Infinity && latestDeadline > now ? latestDeadline : next
    }

    const sleepUntil = (until: number): Effect.Effect<void> =>
      Effect.zipRight(
        clock.sleep(Duration.millis(Math.max(0, until - clock.unsafeCurrentTimeMillis()))),
        Effect.withFiberRuntime<void>((fiber) => {
          // replaced by a sleeper for an earlier deadline: that one sweeps
          if (sleeper !== fiber) return Effect.void
          const next = sweep(clock.unsafeCurrentTimeMillis())
          sleepingUntil = next
          if (next !== Infinity) return sleepUntil(next)
          sleeper = undefined
          return Effect.void
        })
      )

    return {
      watch: (timed) => {
        const deadline = deadlineOf(timed)
        if (deadline > latestDeadline) latestDeadline = deadline
        if (deadline < sleepingUntil && !closed) {
          sleepingUntil = deadline
          const replaced = sleeper
          sleeper = Runtime.runFork(runtime)(sleepUntil(deadline))
          if (replaced !== undefined) replaced.unsafeInterruptAsFork(FiberId.none)
        }
      },
      sleeping: () => sleeper !== undefined
    }
  })
