/**
 * How the session's messages go out: the one send path of a request (at
 * once on a connection that takes it, else from a fiber of its own), the
 * era's decoration and what the transport is told applied at each send,
 * notifications, and the notice that cancels a request the client gave up on.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Tracer from "effect/Tracer"
import * as JsonRpc from "../../JsonRpc.js"
import type * as McpError from "../../McpError.js"
import type * as McpTransport from "../../McpTransport.js"
import type { Decorate, Route } from "../era/codec.js"
import type { Live } from "./link.js"
import { type Pending, queued, type Settled } from "./request.js"

/** How long sending `notifications/cancelled` may take before it is given up. */
const cancelNoticeMillis = 5_000

/**
 * The events of a send, as the pending table applies them to an entry (one
 * transition each, `request.ts`), and what the era adds to each send.
 *
 * @internal
 */
export interface SendEvents {
  readonly decorate: Decorate | undefined
  readonly route: Route
  /** The event "sent": the entry is in flight on `live` (`false` when it settled meanwhile). */
  readonly sent: (entry: Pending, live: Live) => boolean
  /** The event "send failed" of the entry on `live`. */
  readonly sendFailed: (entry: Pending, live: Live, error: McpError.McpClientError) => void
  /** A send that died (a transport bug): the request fails at once with a typed error. */
  readonly sendDied: (entry: Pending, defect: Cause.Cause<never>) => void
  /** Settles the entry with the outcome. */
  readonly settle: (entry: Pending, outcome: Exit.Exit<unknown, McpError.McpClientError>) => void
}

/** @internal */
export const noRoute: Route = () => undefined

/**
 * Hands a request, as it goes out now, to `send` with what the era tells the
 * transport: the era's decoration is applied when sent (the era may be
 * agreed on only then); `onFailure` for a send that reports later.
 *
 * @internal
 */
export const sendRequest = <A>(
  entry: Pick<Pending, "id" | "method" | "params">,
  decorate: Decorate | undefined,
  route: Route,
  send: (message: JsonRpc.Message, options?: McpTransport.SendOptions) => A,
  onFailure?: (error: McpError.McpClientError) => void
): A => {
  const params = decorate === undefined ? entry.params : decorate(entry.method, entry.params)
  const message = JsonRpc.request(entry.id, entry.method, params)
  const sendOptions = route(entry.method, params)
  if (onFailure === undefined) return send(message, sendOptions)
  // (built field by field: a spread is slower, and every request sent at once makes one)
  return send(
    message,
    sendOptions === undefined ? { onFailure } : {
      protocolVersion: sendOptions.protocolVersion,
      headers: sendOptions.headers,
      kind: sendOptions.kind,
      onFailure
    }
  )
}

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
export const notifyOn =
  (connection: McpTransport.Connection, route: Route) => (method: string, params?: Record<string, unknown>) =>
    sendNotification(connection, route, method, params)

/**
 * Cancels a request the client gave up on: the transport's `cancel` closes
 * what carries its answer; then, unless the era cancels by closing it
 * (`closes`) and the transport did, `notifications/cancelled` tells the
 * server:
 * best effort and bounded, as an interrupt must never hang on a server that
 * does not take the notice (it runs where interrupts are masked, so the
 * send is made interruptible for the bound to apply).
 *
 * @internal
 */
export const cancelOnServer = (
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

/**
 * What follows a request's settling, run by its fiber: the log of the
 * defect its send died of, and the notice to the server when the client
 * gave up on it in flight; `undefined` when there is neither.
 *
 * @internal
 */
export const afterSettled = (
  entry: Pending,
  settled: Settled,
  cancelByClosing: boolean,
  route: Route
): Effect.Effect<void> | undefined => {
  const notice = settled.notice
  const defect = settled.defect
  if (notice === undefined && defect === undefined) return undefined
  return Effect.zipRight(
    defect === undefined
      ? Effect.void
      : Effect.logError(`mcp: the transport's send of ${entry.method} died`, defect),
    notice === undefined
      ? Effect.void
      : cancelOnServer(notice.live, entry.id, notice.reason, cancelByClosing, route)
  )
}

/**
 * Sends an entry on a connection: the event "sent", then the send; a failed
 * send is the event "send failed", a send that died the event "send died".
 *
 * @internal
 */
export const sendOn = (events: SendEvents, entry: Pending, live: Live): Effect.Effect<void> =>
  Effect.suspend(() =>
    events.sent(entry, live) ?
      Effect.catchAllCause(sendRequest(entry, events.decorate, events.route, live.connection.send), (cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) events.sendFailed(entry, live, failure.value)
        else if (Cause.isInterruptedOnly(cause)) return Effect.failCause(Cause.stripFailures(cause))
        else events.sendDied(entry, Cause.stripFailures(cause))
        return Effect.void
      }) :
      Effect.void
  )

/**
 * The one send path: on `ready` from the calling code when its transport
 * takes the message at once (`sendNow`; the transport may answer or
 * report a failure before it returns, so the entry is in flight first),
 * else `send` from a fiber of its own (forked in `fiber`'s context, with
 * the request's span as parent), which the entry's settling stops.
 *
 * @internal
 */
export const start = (
  events: SendEvents,
  entry: Pending,
  ready: Live | undefined,
  send: (entry: Pending) => Effect.Effect<void, McpError.McpClientError>,
  fiber: Fiber.RuntimeFiber<unknown, unknown>
): void => {
  const now = ready !== undefined && ready.alive ? ready.connection.sendNow : undefined
  if (now !== undefined && events.sent(entry, ready!)) {
    try {
      if (sendRequest(entry, events.decorate, events.route, now, (error) => events.sendFailed(entry, ready!, error))) {
        return
      }
    } catch (defect) {
      return events.sendDied(entry, Cause.die(defect))
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
      if (state._tag !== "InFlight") return events.settle(entry, Exit.fail(error))
      events.sendFailed(entry, state.live, error)
    })))
}
