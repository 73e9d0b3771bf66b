/**
 * One request of the pending table (`pending.ts`): its entry, the states it
 * goes through (one transition per event, each applied by the table), and
 * how an entry is made from a call's options: its deadlines, whether it may
 * be replayed, and its progress token.
 */
import type * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import type * as JsonRpc from "../../JsonRpc.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as SessionModel from "../engine/sessionModel.js"
import type { Timed } from "../engine/timeouts.js"
import * as Methods from "../methods.js"
import type { Live } from "./link.js"

/** @internal */
export const replayableMethods: ReadonlySet<string> = Methods.replayable

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

/** @internal */
export const queued: State = { _tag: "Queued" }
/** @internal */
export const awaitingResend: State = { _tag: "AwaitingResend" }

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
 * A new entry for a request, once its id and deadlines are known: the
 * params get the progress token (the request's id) when progress resets
 * the idle budget or the caller follows it.
 *
 * @internal
 */
export const newEntry = (
  id: number,
  method: string,
  params: Record<string, unknown> | undefined,
  requestOptions: SessionModel.RequestOptions | undefined,
  span: Tracer.Span | undefined,
  idleMillis: number | undefined,
  totalMillis: number | undefined,
  now: number
): Pending => {
  if (span !== undefined) span.attribute("jsonrpc.request.id", String(id))
  const resetOnProgress = requestOptions?.resetTimeoutOnProgress ?? progressMethods.has(method)
  const wantsProgress = resetOnProgress || requestOptions?.onProgress !== undefined
  const meta = params?._meta as Record<string, unknown> | undefined
  const withProgress = wantsProgress ?
    copyWith(params, "_meta", meta === undefined ? { progressToken: id } : copyWith(meta, "progressToken", id)) :
    params
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
    idleMillis,
    totalMillis,
    startedAt: now,
    lastActivity: now
  }
}

/**
 * What an entry is made with: the session's default deadlines and the
 * next id (the pending table).
 *
 * @internal
 */
export interface EntrySource {
  nextId: number
  readonly defaultIdleMillis: Either.Either<number | undefined, McpError.TransportError>
  readonly defaultTotalMillis: Either.Either<number | undefined, McpError.TransportError>
}

/**
 * A new entry for a request, or the typed error of a bad timeout option
 * (no id is taken then).
 *
 * @internal
 */
export const makeEntry = (
  source: EntrySource,
  clock: Clock.Clock,
  method: string,
  params: Record<string, unknown> | undefined,
  requestOptions: SessionModel.RequestOptions | undefined,
  span: Tracer.Span | undefined
): Pending | McpError.TransportError => {
  const idleMillis = requestOptions?.timeout !== undefined ?
    toMillis("timeout", requestOptions.timeout) :
    source.defaultIdleMillis
  const totalMillis = requestOptions?.maxTotalTimeout !== undefined ?
    toMillis("maxTotalTimeout", requestOptions.maxTotalTimeout) :
    source.defaultTotalMillis
  if (Either.isLeft(idleMillis)) return idleMillis.left
  if (Either.isLeft(totalMillis)) return totalMillis.left
  const id = source.nextId++
  return newEntry(
    id,
    method,
    params,
    requestOptions,
    span,
    idleMillis.right,
    totalMillis.right,
    clock.unsafeCurrentTimeMillis()
  )
}

/**
 * Waits for the entry's outcome: at once when it has settled already.
 *
 * @internal
 */
export const awaitOutcome = (entry: Pending) =>
  Effect.async<unknown, McpError.McpClientError>((resume) => {
    const state = entry.state
    if (state._tag === "Settled") return resume(state.outcome)
    entry.resume = resume
  })
