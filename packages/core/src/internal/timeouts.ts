import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
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
 * One fiber per session watches every request's deadline, instead of a timer
 * per request. It reads the deadlines from the caller's own table of
 * requests (`watched`), so a request costs no insert or removal here: `watch`
 * only wakes the fiber when a new deadline comes before the time it sleeps
 * towards. The fiber sleeps on the `Clock` until the earliest deadline (or,
 * with none left, the latest one it was shown; so `TestClock` drives it).
 *
 * @internal
 */
export const makeSweeper = <T extends Timed>(
  clock: Clock.Clock,
  watched: () => Iterable<T>,
  expire: (timed: T) => void
): Effect.Effect<{ readonly watch: (timed: T) => void }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const wake = yield* Queue.sliding<void>(1)
    let sleepingUntil = Infinity
    let latestDeadline = -Infinity

    const sweep = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
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
      // that finish before the sweeper runs must not make every later request wake it again
      if (next === Infinity && latestDeadline > now) next = latestDeadline
      sleepingUntil = next
      return next === Infinity ? Queue.take(wake) : Effect.raceFirst(Effect.sleep(next - now), Queue.take(wake))
    })
    yield* Effect.forkScoped(Effect.forever(sweep))

    return {
      watch: (timed) => {
        const deadline = deadlineOf(timed)
        if (deadline > latestDeadline) latestDeadline = deadline
        if (deadline < sleepingUntil) {
          sleepingUntil = deadline
          wake.unsafeOffer(undefined)
        }
      }
    }
  })
