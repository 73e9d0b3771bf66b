import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as McpError from "../McpError.js"
import type { Connection, ReconnectOptions } from "../McpTransport.js"

/** @internal */
export type AnySchedule = Schedule.Schedule<unknown, unknown>

/** @internal */
export const defaultSchedule: AnySchedule = Schedule.exponential("100 millis", 2).pipe(
  Schedule.jittered,
  Schedule.modifyDelay((d) => Duration.min(d, Duration.seconds(10))),
  Schedule.intersect(Schedule.recurs(8))
)

/** @internal */
export const fromConnect = (
  connect: Effect.Effect<Connection, McpError.TransportError, Scope.Scope>,
  options?: ReconnectOptions
): Stream.Stream<Connection, McpError.TransportError> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const driver = yield* Schedule.driver(options?.schedule ?? defaultSchedule)
    const healthyAfter = options?.healthyAfterMillis ?? 10_000
    let first = true
    let attempts = 0
    let connectedAt: number | undefined
    let lastError: McpError.TransportError | undefined

    const tick: Effect.Effect<void, Option.Option<McpError.TransportError>> = Effect.suspend(() => {
      if (first) {
        first = false
        return Effect.void
      }
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const healthy = connectedAt !== undefined && now - connectedAt >= healthyAfter
        connectedAt = undefined
        return (healthy ? Effect.zipRight(driver.reset, Effect.sync(() => attempts = 0)) : Effect.void).pipe(
          Effect.zipRight(driver.next(lastError)),
          Effect.zipRight(Effect.sync(() => attempts++)),
          Effect.mapError(() =>
            Option.some(
              new McpError.TransportError({
                reason: "Exhausted",
                message: `gave up after ${attempts + 1} connection attempts` +
                  (lastError ? `: ${lastError.message}` : ": every connection ended before it was usable"),
                ...(lastError ? { cause: lastError } : {})
              })
            )
          )
        )
      })
    })

    const attempt = Stream.scoped(
      Effect.tap(connect, () =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          connectedAt = now
          lastError = undefined
        }))
    ).pipe(
      Stream.catchAll((error) =>
        Effect.logDebug("mcp connect failed", error.message).pipe(
          Effect.zipRight(Effect.sync(() => lastError = error)),
          Stream.drain
        )
      )
    )

    return Stream.repeatEffectOption(tick).pipe(Stream.flatMap(() => attempt))
  }))
