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

/** The two schedules' drivers, made on the first retry (most runs never retry). */
interface Retries {
  readonly firstDriver: Schedule.ScheduleDriver<unknown, unknown>
  readonly driver: Schedule.ScheduleDriver<unknown, unknown>
  readonly isEstablished: Effect.Effect<boolean>
}

/**
 * One run of a transport's connections, as one object whose methods read
 * its fields (a session holds the run for its life: no closure per step).
 *
 * Two phases: until the consumer has established a connection (the session
 * initialized one; without an observer, a connect succeeded) failures are
 * retried on the short `firstConnect` budget; after that on the full
 * `schedule`, which a healthy connection resets. Once `giveUp` has failed,
 * the run fails with its error instead of trying again.
 *
 * One pull per connection, with no stream stage per attempt: a pull closes
 * the scope of the connection before it (the consumer is done with it),
 * waits for the schedule and connects in a new scope; `close` (the end of
 * the stream) closes the last one. The steps are built for each pull, not
 * held for the session's life.
 */
class Run implements ConnectionPull {
  first = true
  connectedOnce = false
  established = false
  attempts = 0
  connectedAt: number | undefined
  lastError: McpError.TransportError | undefined
  /** The scope of the connection handed out last (or being opened). */
  current: Scope.CloseableScope | undefined
  retries: Retries | undefined

  readonly options: ReconnectOptions | undefined
  readonly giveUp: Deferred.Deferred<never, McpError.TransportError> | undefined

  /** `connect` is read for each attempt: a connector may build it then rather than hold it. */
  constructor(readonly connector: Connector) {
    this.options = connector.reconnect
    this.giveUp = connector.giveUp
  }

  get close(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const scope = this.current
      this.current = undefined
      return scope === undefined ? Effect.void : Scope.close(scope, Exit.void)
    })
  }

  get next(): Effect.Effect<Connection, Option.Option<McpError.TransportError>> {
    return Effect.suspend(() =>
      this.close.pipe(
        Effect.zipRight(this.checkGiveUp()),
        Effect.zipRight(Effect.suspend(() => this.tick())),
        Effect.zipRight(Effect.suspend(() => this.attempt())),
        Effect.flatMap((connection) =>
          connection !== undefined ?
            Effect.succeed(connection) :
            Effect.zipRight(Effect.suspend(() => this.checkGiveUp()), this.next)
        )
      )
    )
  }

  /** The schedule with each decision's delay reported before the driver sleeps on it. */
  observed(observer: Option.Option<ConnectionObserver>, schedule: AnySchedule): AnySchedule {
    return Option.isNone(observer) ?
      schedule :
      Schedule.onDecision(schedule, (_, decision) =>
        ScheduleDecision.isDone(decision) ?
          Effect.void :
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            observer.value.retrying({
              attempt: this.attempts + 1,
              delay: Duration.millis(Math.max(0, ScheduleIntervals.start(decision.intervals) - now)),
              lastFailure: this.lastError
            })))
  }

  /** Made on the first retry, where the consumer's observer is known. */
  makeRetries(): Effect.Effect<Retries> {
    if (this.retries !== undefined) return Effect.succeed(this.retries)
    return Effect.flatMap(Effect.serviceOption(observerTag), (observer) =>
      Effect.map(
        Effect.zip(
          Schedule.driver(this.observed(observer, this.options?.firstConnect ?? defaultFirstConnect)),
          Schedule.driver(this.observed(observer, this.options?.schedule ?? defaultSchedule))
        ),
        ([firstDriver, driver]) =>
          this.retries = {
            firstDriver,
            driver,
            isEstablished: Option.isNone(observer) ? Effect.sync(() => this.connectedOnce) : observer.value.established
          }
      ))
  }

  /** Fails with the error of `giveUp` once it has one. */
  checkGiveUp(): Effect.Effect<void, Option.Option<McpError.TransportError>> {
    const giveUp = this.giveUp
    return giveUp === undefined ?
      Effect.void :
      Effect.flatMap(
        Deferred.poll(giveUp),
        (done) => Option.isNone(done) ? Effect.void : Effect.mapError(done.value, Option.some)
      )
  }

  tick(): Effect.Effect<void, Option.Option<McpError.TransportError>> {
    if (this.first) {
      this.first = false
      return Effect.void
    }
    const healthyAfter = this.options?.healthyAfterMillis ?? 10_000
    return Effect.flatMap(
      this.makeRetries(),
      ({ driver, firstDriver, isEstablished }) =>
        Effect.flatMap(Effect.zip(isEstablished, Clock.currentTimeMillis), ([nowEstablished, now]) => {
          const healthy = this.connectedAt !== undefined && now - this.connectedAt >= healthyAfter
          this.connectedAt = undefined
          // a new phase starts its count afresh
          if (nowEstablished && !this.established) {
            this.established = true
            this.attempts = 0
          }
          const reset = healthy && this.established
            ? Effect.zipRight(driver.reset, Effect.sync(() => this.attempts = 0))
            : Effect.void
          return reset.pipe(
            Effect.zipRight((this.established ? driver : firstDriver).next(this.lastError)),
            Effect.zipRight(Effect.sync(() => this.attempts++)),
            Effect.mapError(() => {
              const lastError = this.lastError
              return Option.some(
                new McpError.TransportError({
                  reason: "Exhausted",
                  message: `gave up after ${this.attempts + 1} connection attempts` +
                    (this.established ? "" : " (no connection has worked yet)") +
                    (lastError ?
                      `: ${lastError.message}` :
                      this.established ?
                      `: each connection ended within ${healthyAfter} ms of opening (healthyAfterMillis), too soon to reset the schedule` :
                      ": every connection ended before it was usable"),
                  ...(lastError ? { cause: lastError } : {})
                })
              )
            })
          )
        })
    )
  }

  /** One attempt in a scope of its own, closed at once when it fails (and by `close` if interrupted). */
  attempt(): Effect.Effect<Connection | undefined> {
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Scope.make(), (scope) => {
        this.current = scope
        return restore(traced(Scope.extend(this.connector.connect, scope), this.attempts + 1)).pipe(
          Effect.matchEffect({
            onSuccess: (connection) =>
              Effect.map(Clock.currentTimeMillis, (now) => {
                this.connectedAt = now
                this.connectedOnce = true
                this.lastError = undefined
                return connection
              }),
            onFailure: (error) =>
              this.close.pipe(
                Effect.zipRight(Effect.logDebug("mcp connect failed", error.message)),
                Effect.as(undefined),
                Effect.ensuring(Effect.sync(() => this.lastError = error))
              )
          })
        )
      })
    )
  }
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
): Stream.Stream<Connection, McpError.TransportError> =>
  streamOf(() => new Run({ connect, reconnect: options, giveUp }))

/** @internal */
export const make = (run: () => Connector, endpoint?: string): McpTransport["Type"] => {
  const open = () => new Run(run())
  return endpoint === undefined
    ? { connections: streamOf(open), open }
    : { connections: streamOf(open), open, endpoint }
}
