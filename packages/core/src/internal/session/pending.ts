import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as JsonRpc from "../../JsonRpc.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import type * as SessionModel from "../engine/sessionModel.js"
import * as Spans from "../engine/spans.js"
import { expiredKind, makeSweeper, type Member, type Timed, type Watch } from "../engine/timeouts.js"
import * as Methods from "../methods.js"
import type { Live } from "./link.js"

/** @internal */
export const replayableMethods: ReadonlySet<string> = Methods.replayable

/** How long sending `notifications/cancelled` may take before it is given up. */
const cancelNoticeMillis = 5_000

/** Methods whose idle timeout resets on progress unless a request says otherwise. */
const progressMethods: ReadonlySet<string> = Methods.progressResets

/**
 * A copy of `record`'s own keys with `key` set. Not `{ ...record, [key]: value }`:
 * in V8 a spread followed by a key of its own is ten times slower than this
 * copy, and every request with a progress token makes one.
 */
const copyWith = (
  record: Record<string, unknown> | undefined,
  key: string,
  value: unknown
): Record<string, unknown> => {
  const copy: Record<string, unknown> = {}
  if (record !== undefined) {
    const keys = Object.keys(record)
    for (let i = 0; i < keys.length; i++) copy[keys[i]] = record[keys[i]]
  }
  copy[key] = value
  return copy
}

/** @internal */
export type Outcome = Exit.Exit<unknown, McpError.McpClientError>

/**
 * Where a request is. One transition per event:
 *
 * | from | event | to |
 * |---|---|---|
 * | `Queued`, `AwaitingResend` | sent on a connection | `InFlight` |
 * | `InFlight` | send failed: the server did not know the session (`SessionExpired`) | `AwaitingResend` |
 * | `InFlight` | send failed, the connection still up | `Settled` (the error) |
 * | `InFlight` | answered (a response, or malformed input with its id) | `Settled` |
 * | `InFlight` | its connection lost: replayable | `AwaitingResend` |
 * | `InFlight` | its connection lost: not replayable | `Settled` (`OutcomeUnknown`) |
 * | any but `Settled` | expired (idle or total deadline) | `Settled` (`RequestTimeout`, notice sent) |
 * | any but `Settled` | interrupted (the caller gave up) | `Settled` (notice sent) |
 * | any but `Settled` | the session closed | `Settled` (its error) |
 *
 * `AwaitingResend` is left by the next connection's `resendOn`. A send
 * failure on a connection that is already down changes nothing: its loss
 * does. Only `Settled` leaves the table.
 *
 * @internal
 */
export type State =
  | { readonly _tag: "Queued" }
  | { readonly _tag: "InFlight"; readonly live: Live }
  | { readonly _tag: "AwaitingResend" }
  | Settled

/**
 * A request's end. `notice` is the connection to tell, with
 * `notifications/cancelled`, that the client gave up on the request (it
 * expired or was interrupted while in flight); `defect` what the
 * transport's send died of, logged by the request's fiber.
 *
 * @internal
 */
export interface Settled {
  readonly _tag: "Settled"
  readonly outcome: Outcome
  readonly notice: { readonly live: Live; readonly reason: string } | undefined
  readonly defect: Cause.Cause<never> | undefined
}

const queued: State = { _tag: "Queued" }
const awaitingResend: State = { _tag: "AwaitingResend" }

/**
 * A request the session waits on the answer of.
 *
 * @internal
 */
export interface Pending extends Timed {
  readonly id: JsonRpc.RequestId
  readonly method: string
  /** The params as sent (with the progress token); the message itself is built at each send, not kept. */
  readonly params: Record<string, unknown> | undefined
  readonly replay: boolean
  readonly toolName: string | undefined
  readonly progressToken: JsonRpc.RequestId | undefined
  readonly onProgress: ((p: McpSchema.ProgressNotificationParams) => void) | undefined
  readonly resetOnProgress: boolean
  /** The request's span, when a tracer is installed. */
  readonly span: Tracer.Span | undefined
  state: State
  /** The fiber sending the request from a fiber of its own, while it runs: interrupted once the request settles. */
  sender: Fiber.RuntimeFiber<void> | undefined
  /** Wakes the waiting fiber with the outcome (set while it waits). */
  resume: ((outcome: Outcome) => void) | undefined
}

/**
 * Changes a request's params before it is sent: the hook a protocol era
 * uses to put what it needs (2026-07-28: version and client info in
 * `_meta`) into every request.
 *
 * @internal
 */
export type Decorate = (
  method: string,
  params: Record<string, unknown> | undefined
) => Record<string, unknown> | undefined

/**
 * What the transport is told with a message (the era codec's
 * `sendOptions`, of the params as sent).
 *
 * @internal
 */
export type Route = (
  method: string,
  params: Record<string, unknown> | undefined
) => McpTransport.SendOptions | undefined

/** Milliseconds of a timeout option (`undefined` for none); a value that is no duration is a typed error. @internal */
export const toMillis = (
  name: string,
  t: SessionModel.Timeout | undefined
): Either.Either<number | undefined, McpError.TransportError> => {
  if (t === undefined || t === "none") return Either.right(undefined)
  const decoded = Duration.decodeUnknown(t)
  return Option.isSome(decoded) && Duration.isFinite(decoded.value) ?
    Either.right(Duration.toMillis(decoded.value)) :
    Either.left(
      new McpError.TransportError({
        reason: "Connect",
        phase: "options",
        message: `invalid option ${name}: not a finite Duration or "none"`
      })
    )
}

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
   * connection when replayable, else settled with `OutcomeUnknown`.
   */
  readonly lost: (live: Live, reason: string) => void
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
class Table implements PendingTable, Member<Pending> {
  readonly #pending = new Map<JsonRpc.RequestId, Pending>()
  #nextId = 1
  readonly #defaultIdleMillis: Either.Either<number | undefined, McpError.TransportError>
  readonly #defaultTotalMillis: Either.Either<number | undefined, McpError.TransportError>
  timeouts: Watch<Pending> = undefined as never

  readonly #clock: Clock.Clock
  readonly #decorate: Decorate | undefined
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
    this.#decorate = decorate
    this.route = route
    this.#cancelByClosing = cancelByClosing
    this.#defaultIdleMillis = Either.right(defaultIdle)
    this.#defaultTotalMillis = Either.right(defaultTotal)
  }

  /**
   * Every transition to `Settled`: the entry leaves the table, its span
   * takes the outcome, a send still running is stopped (an HTTP POST
   * waiting for headers is of no use any more) and the waiting fiber wakes.
   * `reason` is why the client gave up on it, for the notice to the server.
   */
  #settle(entry: Pending, outcome: Outcome, reason?: string, defect?: Cause.Cause<never>): void {
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
    if (entry.state._tag === "InFlight") this.#settle(entry, outcome)
  }

  // the sweeper reads the deadlines from the table itself: a settled entry has left it
  watched(): Iterable<Pending> {
    return this.#pending.values()
  }

  /** The event "expired". */
  expire(entry: Pending): void {
    if (entry.state._tag === "Settled") return
    const kind = expiredKind(entry)
    this.#settle(
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
  #sent(entry: Pending, live: Live): boolean {
    if (entry.state._tag === "Settled") return false
    entry.state = { _tag: "InFlight", live }
    if (entry.span !== undefined) Spans.annotateConnection(entry.span, live.connection)
    return true
  }

  /** The event "send failed" of `entry` on `live` (from `send`, or reported after `sendNow`). */
  #sendFailed(entry: Pending, live: Live, error: McpError.McpClientError): void {
    const state = entry.state
    if (state._tag !== "InFlight" || state.live !== live) return // the connection's loss was already handled
    if (error._tag === "SessionExpired") {
      // the server did not know the session: it never ran this request
      entry.state = awaitingResend
      return
    }
    if (!live.alive) return // its loss handles it
    this.#settle(entry, Exit.fail(error))
  }

  /** A send that died (a transport bug): the request fails at once with a typed error, and its fiber logs the defect. */
  #sendDied(entry: Pending, defect: Cause.Cause<never>): void {
    this.#settle(
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
    return Effect.suspend(() =>
      this.#sent(entry, live) ?
        Effect.catchAllCause(this.#sendWith(entry, live.connection.send), (cause) => {
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure)) this.#sendFailed(entry, live, failure.value)
          else if (Cause.isInterruptedOnly(cause)) return Effect.failCause(Cause.stripFailures(cause))
          else this.#sendDied(entry, Cause.stripFailures(cause))
          return Effect.void
        }) :
        Effect.void
    )
  }

  /**
   * Hands the message, as it goes out now, to `send` with what the era tells
   * the transport: the era's decoration is applied when sent (the era may
   * be agreed on only then); `onFailure` for a send that reports later.
   */
  #sendWith<A>(
    entry: Pending,
    send: (message: JsonRpc.Message, options?: McpTransport.SendOptions) => A,
    onFailure?: (error: McpError.McpClientError) => void
  ): A {
    const params = this.#decorate === undefined ? entry.params : this.#decorate(entry.method, entry.params)
    const message = JsonRpc.request(entry.id, entry.method, params)
    const route = this.route(entry.method, params)
    if (onFailure === undefined) return send(message, route)
    // (built field by field: a spread is slower, and every request sent at once makes one)
    return send(
      message,
      route === undefined ? { onFailure } : {
        protocolVersion: route.protocolVersion,
        headers: route.headers,
        kind: route.kind,
        onFailure
      }
    )
  }

  /**
   * The one send path: on `ready` from the calling code when its transport
   * takes the message at once (`sendNow`; the transport may answer or
   * report a failure before it returns, so the entry is in flight first),
   * else `send` from a fiber of its own (forked in `fiber`'s context, with
   * the request's span as parent), which the entry's settling stops.
   */
  #start(
    entry: Pending,
    ready: Live | undefined,
    send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
    fiber: Fiber.RuntimeFiber<unknown, unknown>
  ): void {
    const now = ready !== undefined && ready.alive ? ready.connection.sendNow : undefined
    if (now !== undefined && this.#sent(entry, ready!)) {
      try {
        if (this.#sendWith(entry, now, (error) => this.#sendFailed(entry, ready!, error))) return
      } catch (defect) {
        return this.#sendDied(entry, Cause.die(defect))
      }
      // not taken: back to waiting for a send of its own
      if (entry.state._tag === "InFlight") entry.state = queued
    }
    if (entry.state._tag === "Settled") return
    const context = entry.span === undefined ?
      fiber.currentContext :
      Context.add(fiber.currentContext, Tracer.ParentSpan, entry.span)
    entry.sender = Runtime.runFork(
      Runtime.make({ context, fiberRefs: fiber.getFiberRefs(), runtimeFlags: Runtime.defaultRuntimeFlags })
    )(Effect.catchAll(send(entry), (error) =>
      Effect.sync(() => {
        const state = entry.state
        // a send that failed before it was sent (no connection came): the request ends with the error
        if (state._tag !== "InFlight") return this.#settle(entry, Exit.fail(error))
        this.#sendFailed(entry, state.live, error)
      })))
  }

  /**
   * How the request ended when it failed or was interrupted: an interrupt
   * is the event "interrupted" (a request that did not settle otherwise);
   * then the notice to the server and the defect's log, when the settling
   * left one; then the same cause.
   */
  #failed(entry: Pending, cause: Cause.Cause<McpError.McpClientError>): Effect.Effect<never, McpError.McpClientError> {
    if (entry.state._tag !== "Settled") this.#settle(entry, Exit.failCause(cause), "cancelled by the client")
    const settled = entry.state as Settled
    const notice = settled.notice
    const defect = settled.defect
    if (notice === undefined && defect === undefined) return Effect.failCause(cause)
    return Effect.zipRight(
      Effect.zipRight(
        defect === undefined
          ? Effect.void
          : Effect.logError(`mcp: the transport's send of ${entry.method} died`, defect),
        notice === undefined
          ? Effect.void
          : cancelOnServer(notice.live, entry.id, notice.reason, this.#cancelByClosing(), this.route)
      ),
      Effect.failCause(cause)
    )
  }

  /** A new entry for a request, or the typed error of a bad timeout option. */
  #makeEntry(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: SessionModel.RequestOptions | undefined,
    span: Tracer.Span | undefined
  ): Pending | McpError.TransportError {
    const idleMillis = requestOptions?.timeout !== undefined ?
      toMillis("timeout", requestOptions.timeout) :
      this.#defaultIdleMillis
    const totalMillis = requestOptions?.maxTotalTimeout !== undefined ?
      toMillis("maxTotalTimeout", requestOptions.maxTotalTimeout) :
      this.#defaultTotalMillis
    if (Either.isLeft(idleMillis)) return idleMillis.left
    if (Either.isLeft(totalMillis)) return totalMillis.left
    const id = this.#nextId++
    if (span !== undefined) span.attribute("jsonrpc.request.id", String(id))
    const resetOnProgress = requestOptions?.resetTimeoutOnProgress ?? progressMethods.has(method)
    const wantsProgress = resetOnProgress || requestOptions?.onProgress !== undefined
    const meta = params?._meta as Record<string, unknown> | undefined
    const withProgress = wantsProgress ?
      copyWith(params, "_meta", meta === undefined ? { progressToken: id } : copyWith(meta, "progressToken", id)) :
      params
    const now = this.#clock.unsafeCurrentTimeMillis()
    return {
      id,
      method,
      params: withProgress,
      replay: requestOptions?.replay ?? replayableMethods.has(method),
      toolName: requestOptions?.toolName,
      progressToken: wantsProgress ? id : undefined,
      onProgress: requestOptions?.onProgress,
      resetOnProgress,
      span,
      state: queued,
      sender: undefined,
      resume: undefined,
      idleMillis: idleMillis.right,
      totalMillis: totalMillis.right,
      startedAt: now,
      lastActivity: now
    }
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
    const entry = this.#makeEntry(method, params, requestOptions, span)
    if (entry instanceof McpError.TransportError) return Effect.fail(entry)
    // registering, sending and the cleanup are one step no interrupt can split; a success needs no cleanup
    // (settling did it), a failure goes through `failed`
    return Effect.uninterruptibleMask((restore) => {
      this.#pending.set(entry.id, entry)
      if (entry.idleMillis !== undefined || entry.totalMillis !== undefined) this.timeouts.watch(entry)
      this.#start(entry, ready, send, fiber)
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

  lost(live: Live, reason: string): void {
    for (const entry of this.#pending.values()) {
      const state = entry.state
      if (state._tag !== "InFlight" || state.live !== live) continue
      if (entry.replay) {
        entry.state = awaitingResend
      } else {
        this.#settle(
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
        if (entry.state._tag === "AwaitingResend") this.#start(entry, live, send, fiber)
      }
      return Effect.void
    })
  }

  failAll(error: McpError.McpClientError): void {
    for (const entry of [...this.#pending.values()]) this.#settle(entry, Exit.fail(error))
  }

  size(): number {
    return this.#pending.size
  }
}

const awaitOutcome = (entry: Pending) =>
  Effect.async<unknown, McpError.McpClientError>((resume) => {
    const state = entry.state
    if (state._tag === "Settled") return resume(state.outcome)
    entry.resume = resume
  })

/**
 * Cancels a request the client gave up on: the transport's `cancel` closes
 * what carries its answer; then, unless the era cancels by closing it
 * (`closes`) and the transport did, `notifications/cancelled` tells the
 * server:
 * best effort and bounded, as an interrupt must never hang on a server that
 * does not take the notice (it runs where interrupts are masked, so the
 * send is made interruptible for the bound to apply).
 */
const cancelOnServer = (
  live: Live,
  requestId: JsonRpc.RequestId,
  reason: string,
  closes: boolean,
  route: Route
) =>
  Effect.suspend(() => {
    // what carries the request's answer is closed first (HTTP: its POST, its response stream)
    const cancel = live.connection.cancel
    if (cancel !== undefined) cancel(requestId)
    return live.alive && !(closes && cancel !== undefined) ?
      Effect.interruptible(
        sendNotification(live.connection, route, "notifications/cancelled", { requestId, reason })
      ).pipe(Effect.timeoutOption(cancelNoticeMillis), Effect.ignore) :
      Effect.void
  })

const never = () => false

const noRoute: Route = () => undefined

/**
 * Sends a notification with what the era tells the transport about it.
 *
 * @internal
 */
export const sendNotification = (
  connection: McpTransport.Connection,
  route: Route,
  method: string,
  params?: Record<string, unknown>
): Effect.Effect<void, McpTransport.ConnectionError> =>
  Effect.suspend(() => connection.send(JsonRpc.notification(method, params), route(method, params)))

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
      options.route ?? noRoute,
      options.cancelByClosing ?? never
    )
    return Effect.map(makeSweeper<Pending>(options.clock, table), (watch) => {
      table.timeouts = watch
      return table
    })
  })
