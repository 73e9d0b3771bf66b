import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import type * as ClientSession from "../../ClientSession.js"
import * as JsonRpc from "../../JsonRpc.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import * as Methods from "../methods.js"
import * as Spans from "../engine/spans.js"
import { expiredKind, makeSweeper, type Member, type Timed, type Watch } from "../engine/timeouts.js"
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
const copyWith = (record: Record<string, unknown> | undefined, key: string, value: unknown): Record<string, unknown> => {
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
  /** The connection the request went out on; `undefined` while it waits for one. */
  sentOn: Live | undefined
  /** The fiber sending the request, while it may still be running: interrupted once the outcome is known. */
  sender: Fiber.RuntimeFiber<void> | undefined
  awaitingResend: boolean
  /** The outcome, once known; `resume` hands it to the waiting fiber. */
  outcome: Outcome | undefined
  resume: ((outcome: Outcome) => void) | undefined
  timedOut: boolean
  /** The request's span, when a tracer is installed. */
  readonly span: Tracer.Span | undefined
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

/** Milliseconds of a timeout option (`undefined` for none); a value that is no duration is a typed error. @internal */
export const toMillis = (
  name: string,
  t: ClientSession.Timeout | undefined
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
 * The session's table of requests in flight: ids, registration, settling,
 * deadlines (one sweeper, `timeouts.ts`), progress, and the cancellation
 * notice a request the client gives up on sends the server.
 *
 * @internal
 */
export interface PendingTable {
  /**
   * Makes a request's entry at once and returns the effect that registers
   * it and waits for its outcome: call it as the request runs (inside the
   * effect that runs it), not ahead of time. When `ready` is alive and its
   * transport takes the message at once (`sendNow`), the request is sent
   * from the calling fiber; else `send` puts it on a connection from a fiber
   * of its own, so an outcome such as a timeout is seen while a send is
   * still blocked.
   */
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options: ClientSession.RequestOptions | undefined,
    span: Tracer.Span | undefined,
    send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
    ready: Live | undefined
  ) => Effect.Effect<unknown, McpError.McpClientError>
  /** Sends an entry on a connection; a failed send settles it, unless the connection's loss handles it. */
  readonly sendOn: (entry: Pending, live: Live) => Effect.Effect<void>
  /** The entry waiting for a response with this id on this connection. */
  readonly sentOn: (id: JsonRpc.RequestId | null | undefined, live: Live) => Pending | undefined
  readonly settle: (entry: Pending, outcome: Outcome) => void
  /** A progress notification: resets the idle budget and calls the request's callback (it may throw). */
  readonly progress: (params: McpSchema.ProgressNotificationParams) => (() => void) | undefined
  /**
   * A connection is lost: what it carried is resent on the next when
   * replayable, else settled with `OutcomeUnknown`.
   */
  readonly lost: (live: Live, reason: string) => void
  /** Sends again, on `live`, what waits for a resend. */
  readonly resendOn: (live: Live) => Effect.Effect<void>
  /** Settles every entry with the error: the session is over. */
  readonly failAll: (error: McpError.McpClientError) => void
  readonly size: () => number
}

/** The request's error when its transport's send died. */
const sendDied = (entry: Pending) =>
  new McpError.TransportError({
    reason: "Write",
    phase: "send",
    message: `${entry.method}: the transport failed unexpectedly while sending the request (the defect is logged)`
  })

/** A send stopped once the outcome is known: nothing to do. */
const ignoreInterrupt = () => Effect.void

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

  constructor(clock: Clock.Clock, defaultIdle: number | undefined, defaultTotal: number | undefined, decorate: Decorate | undefined) {
    this.#clock = clock
    this.#decorate = decorate
    this.#defaultIdleMillis = Either.right(defaultIdle)
    this.#defaultTotalMillis = Either.right(defaultTotal)
  }

  settle(entry: Pending, outcome: Outcome): void {
    if (entry.outcome !== undefined) return
    entry.outcome = outcome
    // nothing (an answer, progress, its deadline) concerns a settled entry any more
    this.#pending.delete(entry.id)
    entry.resume?.(outcome)
  }

  // the sweeper reads the deadlines from the table itself: a settled entry has left it
  watched(): Iterable<Pending> {
    return this.#pending.values()
  }

  expire(entry: Pending): void {
    if (entry.outcome !== undefined) return
    const kind = expiredKind(entry)
    entry.timedOut = true
    this.settle(
      entry,
      Exit.fail(
        new McpError.RequestTimeout({
          method: entry.method,
          kind,
          millis: kind === "idle" ? entry.idleMillis! : entry.totalMillis!
        })
      )
    )
  }

  /**
   * Sorts out how a send ended: its typed failure goes to `onFailure`, an
   * interruption to `onInterrupt`, and a defect (a transport bug) fails the
   * request at once with a typed error instead of leaving it to its timeout,
   * with the defect logged.
   */
  #catchSend<E>(
    entry: Pending,
    send: Effect.Effect<void, E>,
    onFailure: (error: E) => Effect.Effect<void>,
    onInterrupt: (cause: Cause.Cause<never>) => Effect.Effect<void>
  ): Effect.Effect<void> {
    return Effect.catchAllCause(send, (cause) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) return onFailure(failure.value)
      if (Cause.isInterruptedOnly(cause)) return onInterrupt(Cause.stripFailures(cause))
      this.settle(entry, Exit.fail(sendDied(entry)))
      return Effect.logError(`mcp: the transport's send of ${entry.method} died`, cause)
    })
  }

  /** Sends in a fiber of its own, so an outcome (a timeout) is seen while a send is still blocked. */
  #startSending(entry: Pending, send: Effect.Effect<void, McpError.McpClientError>): Effect.Effect<void> {
    return Effect.map(
      Effect.fork(Effect.interruptible(this.#catchSend(
        entry,
        send,
        (error) => Effect.sync(() => this.settle(entry, Exit.fail(error))),
        ignoreInterrupt
      ))),
      (fiber) => {
        entry.sender = fiber
      }
    )
  }

  sendOn(entry: Pending, live: Live): Effect.Effect<void> {
    return Effect.suspend(() => {
      entry.sentOn = live
      if (entry.span !== undefined) Spans.annotateConnection(entry.span, live.connection)
      return this.#catchSend(entry, live.connection.send(this.#decorated(entry)), (error) => {
        this.#sendFailed(entry, live, error)
        return Effect.void
      }, Effect.failCause)
    })
  }

  /** How a failed send of `entry` on `live` ends it (from `send`, or reported after `sendNow`). */
  #sendFailed(entry: Pending, live: Live, error: McpError.McpClientError): void {
    if (entry.sentOn !== live) return // the connection's death was already handled
    if (error._tag === "SessionExpired") {
      // the server did not know the session: it never ran this request
      entry.sentOn = undefined
      entry.awaitingResend = true
      return
    }
    if (!live.alive) return // handled by the death of the connection
    this.settle(entry, Exit.fail(error))
  }

  /** The message as it goes out now: the era's decoration is applied when sent (the era may be agreed on only then). */
  #decorated(entry: Pending): JsonRpc.Request {
    return JsonRpc.request(
      entry.id,
      entry.method,
      this.#decorate === undefined ? entry.params : this.#decorate(entry.method, entry.params)
    )
  }

  /**
   * Cleans up after the outcome is known: the span, a send still running, and
   * the cancellation notice when the client gave up on the request.
   */
  #finish(entry: Pending, exit: Exit.Exit<unknown, McpError.McpClientError>): Effect.Effect<void> {
    this.#pending.delete(entry.id)
    if (entry.span !== undefined) Spans.annotateOutcome(entry.span, entry.method, exit)
    // a send still blocked (an HTTP POST waiting for headers) is of no use once the outcome is known
    const sender = entry.sender
    entry.sender = undefined
    if (sender !== undefined && sender.unsafePoll() === null) sender.unsafeInterruptAsFork(FiberId.none)
    if (entry.timedOut) return cancelOnServer(entry, "timeout")
    if (entry.outcome === undefined && Exit.isInterrupted(exit)) {
      entry.outcome = exit
      return cancelOnServer(entry, "cancelled by the client")
    }
    return Effect.void
  }

  /** How the request ended when it failed or was interrupted: cleaned up, then the same cause. */
  #failed(entry: Pending, cause: Cause.Cause<McpError.McpClientError>): Effect.Effect<never, McpError.McpClientError> {
    const done = this.#finish(entry, Exit.failCause(cause))
    return done === Effect.void ? Effect.failCause(cause) : Effect.zipRight(done, Effect.failCause(cause))
  }

  /**
   * Sends on `live` from the calling code when its connection can take the
   * message without waiting (`sendNow`): `true` when sent, `false` when it
   * must be sent from a fiber of its own, or an effect logging a send that
   * threw (a transport bug: the request failed at once with a typed error).
   */
  #sendNow(entry: Pending, live: Live | undefined): boolean | Effect.Effect<void> {
    const now = live !== undefined && live.alive ? live.connection.sendNow : undefined
    if (now === undefined) return false
    entry.sentOn = live
    try {
      if (now(this.#decorated(entry), (error) => this.#sendFailed(entry, live!, error))) {
        if (entry.span !== undefined) Spans.annotateConnection(entry.span, live!.connection)
        return true
      }
    } catch (defect) {
      this.settle(entry, Exit.fail(sendDied(entry)))
      return Effect.logError(`mcp: the transport's send of ${entry.method} died`, Cause.die(defect))
    }
    entry.sentOn = undefined
    return false
  }

  /** A new entry for a request, or the typed error of a bad timeout option. */
  #makeEntry(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: ClientSession.RequestOptions | undefined,
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
      sentOn: undefined,
      sender: undefined,
      awaitingResend: false,
      outcome: undefined,
      resume: undefined,
      timedOut: false,
      idleMillis: idleMillis.right,
      totalMillis: totalMillis.right,
      startedAt: now,
      lastActivity: now,
      span
    }
  }

  /**
   * Registers the entry and waits for its outcome. Registering it and its
   * cleanup is one step no interrupt can split.
   */
  #register(
    entry: Pending,
    send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
    ready: Live | undefined
  ): Effect.Effect<unknown, McpError.McpClientError> {
    return Effect.uninterruptibleMask((restore) => {
      this.#pending.set(entry.id, entry)
      if (entry.idleMillis !== undefined || entry.totalMillis !== undefined) this.timeouts.watch(entry)
      const sent = this.#sendNow(entry, ready)
      const wait = restore(awaitOutcome(entry))
      // the failure handler of a waiting request: a closure over the table and the entry
      const onFailure = (cause: Cause.Cause<McpError.McpClientError>) => this.#failed(entry, cause)
      // already uninterruptible: the handlers below clean up whatever ends the wait (no `onExit` mask of its own)
      if (sent === true && entry.span === undefined) {
        // sent, with no fiber or span to end: a success needs no cleanup (`settle` took the entry out of the table)
        return Effect.catchAllCause(wait, onFailure)
      }
      return Effect.matchCauseEffect(
        sent === false ?
          Effect.zipRight(this.#startSending(entry, send(entry)), wait) :
          sent === true ?
          wait :
          Effect.zipRight(sent, wait),
        {
          onFailure,
          onSuccess: (value) => {
            const done = this.#finish(entry, Exit.succeed(value))
            return done === Effect.void ? Effect.succeed(value) : Effect.as(done, value)
          }
        }
      )
    })
  }

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: ClientSession.RequestOptions | undefined,
    span: Tracer.Span | undefined,
    send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
    ready: Live | undefined
  ): Effect.Effect<unknown, McpError.McpClientError> {
    // no `Effect.suspend` of its own: the caller calls this as the request runs
    const entry = this.#makeEntry(method, params, requestOptions, span)
    return entry instanceof McpError.TransportError ? Effect.fail(entry) : this.#register(entry, send, ready)
  }

  sentOn(id: JsonRpc.RequestId | null | undefined, live: Live): Pending | undefined {
    const entry = id === null || id === undefined ? undefined : this.#pending.get(id)
    return entry !== undefined && entry.sentOn === live ? entry : undefined
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
      if (entry.sentOn !== live || entry.outcome !== undefined) continue
      entry.sentOn = undefined
      if (entry.replay) {
        entry.awaitingResend = true
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
    return Effect.forEach(
      [...this.#pending.values()].filter((entry) => entry.awaitingResend && entry.outcome === undefined),
      (entry) => {
        entry.awaitingResend = false
        return this.#startSending(entry, this.sendOn(entry, live))
      },
      { discard: true }
    )
  }

  failAll(error: McpError.McpClientError): void {
    for (const entry of this.#pending.values()) this.settle(entry, Exit.fail(error))
  }

  size(): number {
    return this.#pending.size
  }
}

const awaitOutcome = (entry: Pending) =>
  Effect.async<unknown, McpError.McpClientError>((resume) => {
    if (entry.outcome !== undefined) return resume(entry.outcome)
    entry.resume = resume
  })

/** Sends `notifications/cancelled` for a request the client gave up on. */
const cancelOnServer = (entry: Pending, reason: string) =>
  Effect.suspend(() => {
    const live = entry.sentOn
    if (!live || !live.alive || entry.method === "initialize") return Effect.void
    // best effort and bounded: an interrupt must never hang on a server that does not take the notice
    // (it runs in a finalizer, so the send must be made interruptible for the bound to apply)
    return Effect.interruptible(
      live.connection.send(JsonRpc.notification("notifications/cancelled", { requestId: entry.id, reason }))
    ).pipe(Effect.timeoutOption(cancelNoticeMillis), Effect.ignore)
  })

/** @internal */
export const make = (options: {
  readonly clock: Clock.Clock
  readonly defaultIdle: number | undefined
  readonly defaultTotal: number | undefined
  readonly decorate?: Decorate | undefined
}): Effect.Effect<PendingTable, never, Scope.Scope> =>
  Effect.suspend(() => {
    const table = new Table(options.clock, options.defaultIdle, options.defaultTotal, options.decorate)
    return Effect.map(makeSweeper<Pending>(options.clock, table), (watch) => {
      table.timeouts = watch
      return table
    })
  })
