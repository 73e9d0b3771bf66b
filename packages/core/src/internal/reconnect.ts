import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as McpError from "../McpError.js"
import type {
  Connection,
  ConnectionObserver,
  ConnectionPull,
  Connector,
  McpTransport,
  ReconnectOptions
} from "../McpTransport.js"

/**
 * The tag of `McpTransport.ConnectionObserver`, made here so that this
 * module needs nothing of the public one but its types (values flow one
 * way: public → internal).
 *
 * @internal
 */
export const observerTag: Context.Tag<ConnectionObserver, ConnectionObserver> = Context.GenericTag<ConnectionObserver>(
  "@mcp-effect/core/McpTransport/ConnectionObserver"
)

/** @internal */
export type AnySchedule = Schedule.Schedule<unknown, unknown>

/** @internal */
export const defaultSchedule: AnySchedule = Schedule.exponential("100 millis", 2).pipe(
  Schedule.jittered,
  Schedule.modifyDelay((d) => Duration.min(d, Duration.seconds(10))),
  Schedule.intersect(Schedule.recurs(8))
)

/** @internal */
export const defaultFirstConnect: AnySchedule = Schedule.exponential("100 millis", 2).pipe(
  Schedule.intersect(Schedule.recurs(3))
)

/** Each connect attempt is a span; a failed one carries the error's kind. */
const traced = <A, R>(connect: Effect.Effect<A, McpError.TransportError, R>, attempt: number) =>
  connect.pipe(
    Effect.tapError((error) => Effect.annotateCurrentSpan("error.type", error.reason)),
    Effect.withSpan("mcp.client connect", {
      kind: "client",
      attributes: { "mcp.connect.attempt": attempt },
      captureStackTrace: false
    })
  )

/**
 * Two phases: until the consumer has established a connection (the session
 * initialized one; without an observer, a connect succeeded) failures are
 * retried on the short `firstConnect` budget; after that on the full
 * `schedule`, which a healthy connection resets. Once `giveUp` has failed,
 * the stream fails with its error instead of trying again.
 *
 * One pull per connection, with no stream stage per attempt (each stage of
 * a stream the session reads stays in memory as long as the session): a
 * pull closes the scope of the connection before it (the consumer is done
 * with it), waits for the schedule and connects in a new scope; the end of
 * the stream closes the last one.
 *
 * @internal
 */
const openRun = (
  connect: Effect.Effect<Connection, McpError.TransportError, Scope.Scope>,
  options: ReconnectOptions | undefined,
  giveUp: Deferred.Deferred<never, McpError.TransportError> | undefined
): ConnectionPull => {
  const healthyAfter = options?.healthyAfterMillis ?? 10_000
  let first = true
  let connectedOnce = false
  let established = false
  let attempts = 0
  let connectedAt: number | undefined
  let lastError: McpError.TransportError | undefined
  /** The scope of the connection handed out last (or being opened). */
  let current: Scope.CloseableScope | undefined

  const closeCurrent = Effect.suspend(() => {
    const scope = current
    current = undefined
    return scope === undefined ? Effect.void : Scope.close(scope, Exit.void)
  })

  // the delay of each decision is reported before the driver sleeps on it
  const observed = (observer: Option.Option<ConnectionObserver>, schedule: AnySchedule) =>
    Option.isNone(observer) ?
      schedule :
      Schedule.onDecision(schedule, (_, decision) =>
        ScheduleDecision.isDone(decision) ?
          Effect.void :
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            observer.value.retrying({
              attempt: attempts + 1,
              delay: Duration.millis(Math.max(0, ScheduleIntervals.start(decision.intervals) - now)),
              lastFailure: lastError
            })))
  /** Made on the first retry, where the consumer's observer is known (most streams never retry). */
  let retries: {
    readonly firstDriver: Schedule.ScheduleDriver<unknown, unknown>
    readonly driver: Schedule.ScheduleDriver<unknown, unknown>
    readonly isEstablished: Effect.Effect<boolean>
  } | undefined
  const makeRetries = () =>
    retries !== undefined ?
      Effect.succeed(retries) :
      Effect.flatMap(Effect.serviceOption(observerTag), (observer) =>
        Effect.map(
          Effect.zip(
            Schedule.driver(observed(observer, options?.firstConnect ?? defaultFirstConnect)),
            Schedule.driver(observed(observer, options?.schedule ?? defaultSchedule))
          ),
          ([firstDriver, driver]) =>
            retries = {
              firstDriver,
              driver,
              isEstablished: Option.isNone(observer) ? Effect.sync(() => connectedOnce) : observer.value.established
            }
        ))

  /** Fails with the error of `giveUp` once it has one. */
  const checkGiveUp = (): Effect.Effect<void, Option.Option<McpError.TransportError>> =>
    giveUp === undefined ?
      Effect.void :
      Effect.flatMap(Deferred.poll(giveUp), (done) =>
        Option.isNone(done) ? Effect.void : Effect.mapError(done.value, Option.some))

  const tick = (): Effect.Effect<void, Option.Option<McpError.TransportError>> => {
    if (first) {
      first = false
      return Effect.void
    }
    return Effect.flatMap(
      makeRetries(),
      ({ driver, firstDriver, isEstablished }) =>
        Effect.flatMap(Effect.zip(isEstablished, Clock.currentTimeMillis), ([nowEstablished, now]) => {
          const healthy = connectedAt !== undefined && now - connectedAt >= healthyAfter
          connectedAt = undefined
          // a new phase starts its count afresh
          if (nowEstablished && !established) {
            established = true
            attempts = 0
          }
          const reset = healthy && established
            ? Effect.zipRight(driver.reset, Effect.sync(() => attempts = 0))
            : Effect.void
          return reset.pipe(
            Effect.zipRight((established ? driver : firstDriver).next(lastError)),
            Effect.zipRight(Effect.sync(() => attempts++)),
            Effect.mapError(() =>
              Option.some(
                new McpError.TransportError({
                  reason: "Exhausted",
                  message: `gave up after ${attempts + 1} connection attempts` +
                    (established ? "" : " (no connection has worked yet)") +
                    (lastError ? `: ${lastError.message}` : ": every connection ended before it was usable"),
                  ...(lastError ? { cause: lastError } : {})
                })
              )
            )
          )
        })
    )
  }

  /** One attempt in a scope of its own, closed at once when it fails (and by the stream's finalizer if interrupted). */
  const attempt = (): Effect.Effect<Connection | undefined> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Scope.make(), (scope) => {
        current = scope
        return restore(traced(Scope.extend(connect, scope), attempts + 1)).pipe(
          Effect.matchEffect({
            onSuccess: (connection) =>
              Effect.map(Clock.currentTimeMillis, (now) => {
                connectedAt = now
                connectedOnce = true
                lastError = undefined
                return connection
              }),
            onFailure: (error) =>
              closeCurrent.pipe(
                Effect.zipRight(Effect.logDebug("mcp connect failed", error.message)),
                Effect.as(undefined),
                Effect.ensuring(Effect.sync(() => lastError = error))
              )
          })
        )
      })
    )

  // the steps are built for each pull (one per connection) rather than held for the session's life
  const next: Effect.Effect<Connection, Option.Option<McpError.TransportError>> = Effect.suspend(() =>
    closeCurrent.pipe(
      Effect.zipRight(checkGiveUp()),
      Effect.zipRight(Effect.suspend(tick)),
      Effect.zipRight(Effect.suspend(attempt)),
      Effect.flatMap((connection) =>
        connection !== undefined ? Effect.succeed(connection) : Effect.zipRight(Effect.suspend(checkGiveUp), next)
      )
    )
  )
  return { next, close: closeCurrent }
}

/** The stream of one run's connections (one stage per run). */
const streamOf = (run: () => ConnectionPull): Stream.Stream<Connection, McpError.TransportError> =>
  Stream.suspend(() => {
    const { close, next } = run()
    // the stream's end (or interruption) closes the connection handed out last
    return Stream.repeatEffectChunkOption(Effect.map(next, Chunk.of)).pipe(Stream.ensuring(close))
  })

/** @internal */
export const fromConnect = (
  connect: Effect.Effect<Connection, McpError.TransportError, Scope.Scope>,
  options?: ReconnectOptions,
  giveUp?: Deferred.Deferred<never, McpError.TransportError>
): Stream.Stream<Connection, McpError.TransportError> => streamOf(() => openRun(connect, options, giveUp))

/** @internal */
export const make = (run: () => Connector, endpoint?: string): McpTransport["Type"] => {
  const open = () => {
    const connector = run()
    return openRun(connector.connect, connector.reconnect, connector.giveUp)
  }
  return endpoint === undefined
    ? { connections: streamOf(open), open }
    : { connections: streamOf(open), open, endpoint }
}
