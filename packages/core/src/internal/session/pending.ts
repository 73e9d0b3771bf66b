import type * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import type * as JsonRpc from "../../JsonRpc.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as SessionModel from "../engine/sessionModel.js"
import * as Spans from "../engine/spans.js"
import { expiredKind, makeSweeper, type Member, type Watch } from "../engine/timeouts.js"
import type { Decorate, Route } from "../era/codec.js"
import type { Live } from "./link.js"
import * as Outbound from "./outbound.js"
import {
  awaitingResend,
  awaitOutcome,
  type EntrySource,
  makeEntry,
  type Outcome,
  type Pending,
  type Settled
} from "./request.js"

/**
 * The session's table of requests in flight: ids, registration, the state
 * machine of each request (`State`), deadlines (one sweeper, `timeouts.ts`),
 * progress, and the cancellation notice a request the client gives up on
 * sends the server.
 *
 * @internal
 */
export interface PendingTable {
  /**
   * Makes a request's entry at once and returns the effect that registers
   * it, sends it and waits for its outcome: call it as the request runs
   * (inside the effect that runs it, `fiber` being the fiber that runs
   * it), not ahead of time. The one send path (`start`): when `ready` is
   * alive and its transport takes the message at once (`sendNow`), it is
   * sent from the calling code; else `send` puts it on a connection from a
   * fiber of its own, so an outcome such as a timeout is seen while a send
   * is still blocked.
   */
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options: SessionModel.RequestOptions | undefined,
    span: Tracer.Span | undefined,
    send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
    ready: Live | undefined,
    fiber: Fiber.RuntimeFiber<unknown, unknown>
  ) => Effect.Effect<unknown, McpError.McpClientError>
  /** Sends an entry on a connection (the event "sent"); a failed send is the event "send failed". */
  readonly sendOn: (entry: Pending, live: Live) => Effect.Effect<void>
  /** The entry waiting for a response with this id on this connection. */
  readonly sentOn: (id: JsonRpc.RequestId | null | undefined, live: Live) => Pending | undefined
  /** The event "answered": a response (or malformed input with the request's id) settles the entry. */
  readonly answered: (entry: Pending, outcome: Outcome) => void
  /** A progress notification: resets the idle budget and calls the request's callback (it may throw). */
  readonly progress: (params: McpSchema.ProgressNotificationParams) => (() => void) | undefined
  /**
   * The event "lost" for what a connection carried: resent on the next
   * connection when replayable, else settled with `OutcomeUnknown`. With
   * `unanswerable` (the connection ended on an answer too large to read,
   * which may have been any request's), replayable requests settle with it
   * instead: sent again, they would only be answered too large again.
   */
  readonly lost: (live: Live, reason: string, unanswerable?: McpError.McpClientError) => void
  /** Sends again, on `live`, what awaits a resend. */
  readonly resendOn: (live: Live) => Effect.Effect<void>
  /** Settles every entry with the error: the session is over. */
  readonly failAll: (error: McpError.McpClientError) => void
  readonly size: () => number
  /** What the transport is told with a message the session sends (a notification, a notice). */
  readonly route: Route
}

/**
 * The table as one object whose methods read its fields: a session holds the
 * object, not a closure per operation over a generator's scope.
 */
class Table implements PendingTable, Member<Pending>, EntrySource, Outbound.SendEvents {
  readonly #pending = new Map<JsonRpc.RequestId, Pending>()
  nextId = 1
  readonly defaultIdleMillis: Either.Either<number | undefined, McpError.TransportError>
  readonly defaultTotalMillis: Either.Either<number | undefined, McpError.TransportError>
  timeouts: Watch<Pending> = undefined as never

  readonly #clock: Clock.Clock
  readonly decorate: Decorate | undefined
  readonly #cancelByClosing: () => boolean
  readonly route: Route

  constructor(
    clock: Clock.Clock,
    defaultIdle: number | undefined,
    defaultTotal: number | undefined,
    decorate: Decorate | undefined,
    route: Route,
    cancelByClosing: () => boolean
  ) {
    this.#clock = clock
    this.decorate = decorate
    this.route = route
    this.#cancelByClosing = cancelByClosing
    this.defaultIdleMillis = Either.right(defaultIdle)
    this.defaultTotalMillis = Either.right(defaultTotal)
  }

  /**
   * Every transition to `Settled`: the entry leaves the table, its span
   * takes the outcome, a send still running is stopped (an HTTP POST
   * waiting for headers is of no use any more) and the waiting fiber wakes.
   * `reason` is why the client gave up on it, for the notice to the server.
   */
  settle(entry: Pending, outcome: Outcome, reason?: string, defect?: Cause.Cause<never>): void {
    const state = entry.state
    if (state._tag === "Settled") return
    const notice = reason !== undefined && state._tag === "InFlight" && entry.method !== "initialize" ?
      { live: state.live, reason } :
      undefined
    entry.state = { _tag: "Settled", outcome, notice, defect }
    this.#pending.delete(entry.id)
    if (entry.span !== undefined) Spans.annotateOutcome(entry.span, entry.method, outcome)
    const sender = entry.sender
    entry.sender = undefined
    if (sender !== undefined && sender.unsafePoll() === null) sender.unsafeInterruptAsFork(FiberId.none)
    const resume = entry.resume
    entry.resume = undefined
    resume?.(outcome)
  }

  answered(entry: Pending, outcome: Outcome): void {
    if (entry.state._tag === "InFlight") this.settle(entry, outcome)
  }

  // the sweeper reads the deadlines from the table itself: a settled entry has left it
  watched(): Iterable<Pending> {
    return this.#pending.values()
  }

  /** The event "expired". */
  expire(entry: Pending): void {
    if (entry.state._tag === "Settled") return
    const kind = expiredKind(entry)
    this.settle(
      entry,
      Exit.fail(
        new McpError.RequestTimeout({
          method: entry.method,
          kind,
          millis: kind === "idle" ? entry.idleMillis! : entry.totalMillis!
        })
      ),
      "timeout"
    )
  }

  /** The event "sent": the entry is in flight on `live` (unless it settled meanwhile). */
  sent(entry: Pending, live: Live): boolean {
    if (entry.state._tag === "Settled") return false
    entry.state = { _tag: "InFlight", live }
    if (entry.span !== undefined) Spans.annotateConnection(entry.span, live.connection)
    return true
  }

  /** The event "send failed" of `entry` on `live` (from `send`, or reported after `sendNow`). */
  sendFailed(entry: Pending, live: Live, error: McpError.McpClientError): void {
    const state = entry.state
    if (state._tag !== "InFlight" || state.live !== live) return // the connection's loss was already handled
    if (error._tag === "SessionExpired") {
      // the server did not know the session: it never ran this request
      entry.state = awaitingResend
      return
    }
    if (!live.alive) return // its loss handles it
    this.settle(entry, Exit.fail(error))
  }

  /** A send that died (a transport bug): the request fails at once with a typed error, and its fiber logs the defect. */
  sendDied(entry: Pending, defect: Cause.Cause<never>): void {
    this.settle(
      entry,
      Exit.fail(
        new McpError.TransportError({
          reason: "Write",
          phase: "send",
          message: `${entry.method}: the transport failed unexpectedly while sending the request (the defect is logged)`
        })
      ),
      undefined,
      defect
    )
  }

  sendOn(entry: Pending, live: Live): Effect.Effect<void> {
    return Outbound.sendOn(this, entry, live)
  }

  /**
   * How the request ended when it failed or was interrupted: an interrupt
   * is the event "interrupted" (a request that did not settle otherwise);
   * then the notice to the server and the defect's log, when the settling
   * left one; then the same cause.
   */
  #failed(entry: Pending, cause: Cause.Cause<McpError.McpClientError>): Effect.Effect<never, McpError.McpClientError> {
    if (entry.state._tag !== "Settled") this.settle(entry, Exit.failCause(cause), "cancelled by the client")
    const after = Outbound.afterSettled(entry, entry.state as Settled, this.#cancelByClosing(), this.route)
    return after === undefined ? Effect.failCause(cause) : Effect.zipRight(after, Effect.failCause(cause))
  }

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: SessionModel.RequestOptions | undefined,
    span: Tracer.Span | undefined,
    send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
    ready: Live | undefined,
    fiber: Fiber.RuntimeFiber<unknown, unknown>
  ): Effect.Effect<unknown, McpError.McpClientError> {
    // no `Effect.suspend` of its own: the caller calls this as the request runs
    const entry = makeEntry(this, this.#clock, method, params, requestOptions, span)
    if (entry instanceof McpError.TransportError) return Effect.fail(entry)
    // registering, sending and the cleanup are one step no interrupt can split; a success needs no cleanup
    // (settling did it), a failure goes through `failed`
    return Effect.uninterruptibleMask((restore) => {
      this.#pending.set(entry.id, entry)
      if (entry.idleMillis !== undefined || entry.totalMillis !== undefined) this.timeouts.watch(entry)
      Outbound.start(this, entry, ready, send, fiber)
      return Effect.catchAllCause(restore(awaitOutcome(entry)), (cause) => this.#failed(entry, cause))
    })
  }

  sentOn(id: JsonRpc.RequestId | null | undefined, live: Live): Pending | undefined {
    const entry = id === null || id === undefined ? undefined : this.#pending.get(id)
    if (entry === undefined) return undefined
    const state = entry.state
    return state._tag === "InFlight" && state.live === live ? entry : undefined
  }

  progress(params: McpSchema.ProgressNotificationParams): (() => void) | undefined {
    // a request's progress token is its id
    const entry = this.#pending.get(params.progressToken)
    if (!entry || entry.progressToken === undefined) return undefined
    if (entry.resetOnProgress) entry.lastActivity = this.#clock.unsafeCurrentTimeMillis()
    const onProgress = entry.onProgress
    return onProgress === undefined ? undefined : () => onProgress(params)
  }

  lost(live: Live, reason: string, unanswerable?: McpError.McpClientError): void {
    for (const entry of [...this.#pending.values()]) {
      const state = entry.state
      if (state._tag !== "InFlight" || state.live !== live) continue
      if (entry.replay) {
        if (unanswerable === undefined) entry.state = awaitingResend
        else this.settle(entry, Exit.fail(unanswerable))
      } else {
        this.settle(
          entry,
          Exit.fail(
            new McpError.OutcomeUnknown({
              method: entry.method,
              ...(entry.toolName !== undefined ? { toolName: entry.toolName } : {}),
              message: `the connection was lost (${reason}) after ${entry.method}` +
                (entry.toolName ? ` ${entry.toolName}` : "") +
                " was sent: it may or may not have run, and it is not sent again"
            })
          )
        )
      }
    }
  }

  resendOn(live: Live): Effect.Effect<void> {
    return Effect.withFiberRuntime((fiber) => {
      const send = (entry: Pending) => this.sendOn(entry, live)
      for (const entry of [...this.#pending.values()]) {
        if (entry.state._tag === "AwaitingResend") Outbound.start(this, entry, live, send, fiber)
      }
      return Effect.void
    })
  }

  failAll(error: McpError.McpClientError): void {
    for (const entry of [...this.#pending.values()]) this.settle(entry, Exit.fail(error))
  }

  size(): number {
    return this.#pending.size
  }
}

const never = () => false

/** @internal */
export const make = (options: {
  readonly clock: Clock.Clock
  readonly defaultIdle: number | undefined
  readonly defaultTotal: number | undefined
  readonly decorate?: Decorate | undefined
  /** What the transport is told with each message. Default: nothing. */
  readonly route?: Route | undefined
  /**
   * Whether the negotiated era cancels a request by closing its stream
   * (2026-07-28) rather than with `notifications/cancelled`. Default: never.
   */
  readonly cancelByClosing?: (() => boolean) | undefined
}): Effect.Effect<PendingTable, never, Scope.Scope> =>
  Effect.suspend(() => {
    const table = new Table(
      options.clock,
      options.defaultIdle,
      options.defaultTotal,
      options.decorate,
      options.route ?? Outbound.noRoute,
      options.cancelByClosing ?? never
    )
    return Effect.map(makeSweeper<Pending>(options.clock, table), (watch) => {
      table.timeouts = watch
      return table
    })
  })
