import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as Intervals from "effect/ScheduleIntervals"

/** @internal */
export interface Backoff {
  /** The next delay in milliseconds, or `None` when the schedule is done. Does not sleep. */
  readonly next: Effect.Effect<Option.Option<number>>
  readonly reset: Effect.Effect<void>
}

/**
 * Steps a schedule by hand, so a server's `retry:` can replace a delay while
 * the attempt still counts against the schedule.
 *
 * @internal
 */
export const make = (schedule: Schedule.Schedule<unknown, unknown>): Backoff => {
  let state = schedule.initial
  return {
    next: Effect.flatMap(
      Clock.currentTimeMillis,
      (now) =>
        Effect.map(schedule.step(now, undefined, state), ([next, , decision]) => {
          state = next
          return ScheduleDecision.isDone(decision)
            ? Option.none()
            : Option.some(Math.max(0, Intervals.start(decision.intervals) - now))
        })
    ),
    reset: Effect.sync(() => {
      state = schedule.initial
    })
  }
}
