import type * as Headers from "@effect/platform/Headers"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Backoff from "./backoff.js"
import * as Body from "./body.js"
import type { Ctx } from "./context.js"
import { bodyFailure, describeFailure, httpError, isUnreachable } from "./exchange.js"
import * as Expiry from "./expiry.js"
import * as RetryAfter from "./retryAfter.js"
import * as Sse from "./sse.js"

/**
 * What one logical SSE stream has seen so far; survives reconnections.
 *
 * @internal
 */
export interface Progress {
  lastEventId: string | undefined
  retryMillis: number | undefined
  events: number
}

/** @internal */
export const makeProgress = (): Progress => ({ lastEventId: undefined, retryMillis: undefined, events: 0 })

/**
 * What an answer's `Content-Type` says its body is: an SSE stream, JSON, or anything else.
 *
 * @internal
 */
export const bodyKind = (headers: Headers.Headers): "sse" | "json" | "other" => {
  const type = (headers["content-type"] ?? "").toLowerCase()
  return type.includes("text/event-stream") ? "sse" : type.includes("json") ? "json" : "other"
}

/** @internal */
export const isEventStream = (response: HttpClientResponse.HttpClientResponse): boolean =>
  bodyKind(response.headers) === "sse"

/**
 * Delivers the messages of a response stream until the server ends it.
 * With `pending` (the request ids a POST carried), it reports whether every
 * one was answered; the stream is still read to its end after that (the
 * server closes it right after the last answer), which lets the HTTP client
 * reuse the connection instead of aborting the response. Fails with
 * `TransportError` (phase `idle` for the idle timeout) when reading breaks.
 *
 * The bytes are decoded and parsed in one pass per chunk (no stream stage
 * per step; see `Body.read`).
 *
 * @internal
 */
export const consume = (
  ctx: Ctx,
  response: HttpClientResponse.HttpClientResponse,
  progress: Progress,
  phase: string,
  pending?: Set<JsonRpc.RequestId>,
  onEvent?: (event: { readonly event: string; readonly data: string }) => Effect.Effect<void>,
  owner?: Body.Owner
): Effect.Effect<void, McpError.TransportError> => {
  const { config } = ctx
  const reader = Sse.makeReader(config.maxMessageBytes)
  const decoder = new TextDecoder()
  const idle = config.idleMillis
  const handle = (item: Sse.Item): Body.Go<never> => {
    switch (item._tag) {
      case "Retry":
        progress.retryMillis = item.millis
        return true
      case "TooLarge": {
        const message = `an SSE event from ${config.description} exceeds the limit of ${config.maxMessageBytes} bytes`
        // on a stream answering one request, the event is that answer
        if (pending !== undefined && pending.size === 1) return deliver([JsonRpc.malformed("TooLarge", message)])
        // on a response stream whose requests are all answered, it answers nothing: reading stops
        if (pending !== undefined && pending.size === 0) return false
        // elsewhere it may have been any answer: the stream can no longer be trusted, so the connection ends
        // and every request still waiting on it gets its outcome now, not at its timeout
        return Effect.as(
          Effect.zipRight(
            ctx.deliver([JsonRpc.malformed("TooLarge", message)]),
            ctx.fail(
              new McpError.TransportError({ reason: "Read", phase, message: `${message}; the connection is closed` })
            )
          ),
          false
        )
      }
      case "Event": {
        if (item.id !== undefined) progress.lastEventId = item.id
        progress.events++
        if (onEvent !== undefined && item.event !== "message") return Effect.as(onEvent(item), true)
        if (item.data === "" || item.event !== "message") return true
        return deliver(JsonRpc.decode(item.data, config.maxMessageBytes))
      }
    }
  }
  // at once while every item is handled at once; from the first that needs an effect, through effects
  const handleFrom = (items: Array<Sse.Item>, index: number): Body.Go<never> => {
    for (let i = index; i < items.length; i++) {
      const go = handle(items[i]!)
      if (go === true) continue
      if (go === false) return false
      return i === items.length - 1 ? go : Effect.flatMap(go, (on) => Body.lift(on && handleFrom(items, i + 1)))
    }
    return true
  }
  // Marks answered requests. On a stream that answers one request, an unreadable event that
  // names no id is taken as that answer, so the request fails at once instead of hanging.
  const deliver = (messages: Array<JsonRpc.Incoming>): Body.Go<never> => {
    if (pending === undefined || pending.size === 0) {
      return ctx.deliverNow(messages) || Effect.as(ctx.deliver(messages), true)
    }
    const only = pending.size === 1 ? [...pending][0] : undefined
    const marked = messages.map((message) => {
      if (JsonRpc.isMalformed(message)) {
        const id = message.id ?? only
        if (id !== undefined) pending.delete(id)
        return id === message.id ? message : { ...message, id }
      }
      if (JsonRpc.isResponse(message) && message.id !== null) pending.delete(message.id)
      return message
    })
    return ctx.deliverNow(marked) || Effect.as(ctx.deliver(marked), true)
  }
  return Body.read(
    response,
    (chunk) => {
      const items = reader.feed(decoder.decode(chunk, { stream: true }))
      return items.length === 0 || handleFrom(items, 0)
    },
    idle === undefined ? undefined : {
      millis: idle,
      error: () =>
        new McpError.TransportError({
          reason: "Read",
          phase: "idle",
          message: `the SSE stream from ${config.description} was silent for ${idle} ms`
        })
    },
    owner
  ).pipe(
    Effect.mapError((error) =>
      error._tag === "TransportError" ? error : new McpError.TransportError({
        reason: "Read",
        phase,
        message: `the SSE stream from ${config.description} broke: ${describeFailure(bodyFailure(error))}`
      })
    )
  )
}

/**
 * Reads the SSE answer of a POST. When it ends before every request it
 * carried is answered, resumes it with GET + `Last-Event-ID` (keeping the
 * last id across drops) on the `sseReconnect` schedule, honouring `retry:`.
 * A stream that cannot be resumed ends the connection: the answer is lost,
 * and the session's replay policy decides what happens to the request.
 * `owner` (the fiber reading it, see `Body.read`) releases the first stream.
 *
 * @internal
 */
export const followPostStream = (
  ctx: Ctx,
  first: HttpClientResponse.HttpClientResponse,
  pending: Set<JsonRpc.RequestId>,
  owner?: Body.Owner
): Effect.Effect<void> => {
  const progress = makeProgress()
  // the stream that answered every request it carried (nearly all) ends here; one that did not is resumed
  return Effect.flatMap(
    Effect.either(consume(ctx, first, progress, "post-stream", pending, undefined, owner)),
    (first) =>
      pending.size === 0 || ctx.state.failure !== undefined ? Effect.void : Effect.gen(function*() {
        const backoff = Backoff.make(ctx.config.sseReconnect)
        let outcome = first
        let phase = "post-stream"
        while (true) {
          const why = Either.isLeft(outcome) ? outcome.left.message : "the server closed it before answering"
          if (progress.lastEventId === undefined) {
            return yield* ctx.fail(
              new McpError.TransportError({
                reason: Either.isLeft(outcome) ? "Read" : "Closed",
                phase,
                message: `lost the response stream of a request (${why}) and it has no event id to resume from`
              })
            )
          }
          yield* Effect.logDebug("mcp http: resuming a response stream", ctx.config.description)
          const resumed = yield* reopen(ctx, backoff, progress, why)
          if (Option.isNone(resumed)) return
          phase = "resume"
          const eventsBefore = progress.events
          outcome = yield* Effect.either(consume(ctx, resumed.value, progress, phase, pending))
          if (pending.size === 0 || ctx.state.failure !== undefined) return
          if (progress.events > eventsBefore) yield* backoff.reset
        }
      })
  )
}

/** GET + Last-Event-ID until a stream opens; `None` when the connection ended instead. */
const reopen = (
  ctx: Ctx,
  backoff: Backoff.Backoff,
  progress: Progress,
  firstReason: string
): Effect.Effect<Option.Option<HttpClientResponse.HttpClientResponse>> =>
  Effect.gen(function*() {
    const { config } = ctx
    let reason = firstReason
    let asked: number | undefined
    while (true) {
      const delay = yield* backoff.next
      if (Option.isNone(delay)) {
        yield* ctx.fail(
          new McpError.TransportError({
            reason: "Exhausted",
            phase: "resume",
            message: `gave up resuming a response stream from ${config.description}: ${reason}`
          })
        )
        return Option.none()
      }
      yield* Effect.sleep(asked ?? progress.retryMillis ?? delay.value)
      asked = undefined
      const hadSession = ctx.state.sessionId !== undefined
      const result = yield* Effect.either(ctx.execute({
        method: "GET",
        accept: "text/event-stream",
        headers: { ...ctx.sessionHeaders(), "last-event-id": progress.lastEventId! },
        phase: "resume",
        connectTimeout: true
      }))
      if (Either.isLeft(result)) {
        // (a server that cannot be reached ends the connection now: the session reconnects on its schedule)
        if (result.left._tag !== "TransportError" || isUnreachable(result.left)) {
          yield* ctx.fail(result.left)
          return Option.none()
        }
        reason = result.left.message
        continue
      }
      const response = result.right
      if (response.status >= 200 && response.status < 300 && isEventStream(response)) return Option.some(response)
      if (yield* Expiry.consume(config, response, hadSession, "resume")) {
        yield* ctx.expire("a GET resuming a stream", response.status)
        return Option.none()
      }
      if (response.status === 405) {
        yield* ctx.fail(httpError(config, "resume", 405, "GET (resume)"))
        return Option.none()
      }
      asked = RetryAfter.delayOf(config, response, yield* Clock.currentTimeMillis)
      reason = `HTTP ${response.status}`
    }
  })

/**
 * The optional GET stream for server messages outside any request. `405`
 * (or `404` / `400` before there is a session) means the server offers
 * none. A dropped stream is reopened with `Last-Event-ID` on the
 * `sseReconnect` schedule; a stream that delivered an event or stayed open
 * for `healthyAfterMillis` resets the schedule. When the schedule runs out
 * after errors the connection ends (no silent dead channel); when it runs
 * out because the server keeps closing the stream at once without a word,
 * the transport stops reopening it (no endless loop) and logs a warning.
 *
 * @internal
 */
export const runGetStream = (
  ctx: Ctx,
  opened?: { readonly response: HttpClientResponse.HttpClientResponse; readonly lastEventId: string | undefined }
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { config } = ctx
    const progress = makeProgress()
    progress.lastEventId = opened?.lastEventId
    // each event id is reported once its messages are delivered: a resumed session reads on after it
    let reported = progress.lastEventId
    const reporting: Ctx = {
      ...ctx,
      // (every delivery goes through `deliver`, which reports the event id)
      deliverNow: () => false,
      deliver: (items) =>
        Effect.zipRight(
          ctx.deliver(items),
          Effect.suspend(() => {
            if (progress.lastEventId === reported || progress.lastEventId === undefined) return Effect.void
            reported = progress.lastEventId
            return ctx.resumable({ lastEventId: reported })
          })
        )
    }
    let waiting = opened?.response
    const backoff = Backoff.make(config.sseReconnect)
    let lastError: McpError.TransportError | undefined
    let asked: number | undefined
    let first = true
    while (ctx.state.failure === undefined) {
      if (!first) {
        const delay = yield* backoff.next
        if (Option.isNone(delay)) {
          if (lastError !== undefined) {
            return yield* ctx.fail(
              new McpError.TransportError({
                reason: "Exhausted",
                phase: "get-stream",
                message: `gave up reopening the GET stream of ${config.description}: ${lastError.message}`
              })
            )
          }
          return yield* Effect.logWarning(
            "mcp http: the server keeps closing the GET stream at once; not reopening it",
            config.description
          )
        }
        yield* Effect.sleep(asked ?? progress.retryMillis ?? delay.value)
        asked = undefined
      }
      first = false
      const hadSession = ctx.state.sessionId !== undefined
      const headers: Record<string, string> = ctx.sessionHeaders()
      if (progress.lastEventId !== undefined) headers["last-event-id"] = progress.lastEventId
      const result = waiting !== undefined ? Either.right(waiting) : yield* Effect.either(ctx.execute({
        method: "GET",
        accept: "text/event-stream",
        headers,
        phase: "get-stream",
        connectTimeout: true
      }))
      waiting = undefined
      if (Either.isLeft(result)) {
        // a server that cannot be reached ends the connection at once (its state leaves Ready; the session
        // reconnects on the `reconnect` schedule) rather than after every `sseReconnect` attempt
        if (result.left._tag !== "TransportError" || isUnreachable(result.left)) return yield* ctx.fail(result.left)
        lastError = result.left
        continue
      }
      const response = result.right
      const status = response.status
      if (status < 200 || status >= 300 || !isEventStream(response)) {
        const expired = yield* Expiry.consume(config, response, hadSession, "get-stream")
        if (status === 405 || (!hadSession && (status === 404 || status === 400))) {
          return yield* Effect.logDebug("mcp http: the server offers no GET stream", config.description, status)
        }
        if (expired) return yield* Effect.asVoid(ctx.expire("the GET stream", status))
        if (status >= 200 && status < 300) {
          return yield* Effect.logDebug("mcp http: the GET stream is not an event stream", config.description)
        }
        asked = RetryAfter.delayOf(config, response, yield* Clock.currentTimeMillis)
        lastError = httpError(config, "get-stream", status, "GET")
        continue
      }
      const openedAt = yield* Clock.currentTimeMillis
      const eventsBefore = progress.events
      const outcome = yield* Effect.either(consume(reporting, response, progress, "get-stream"))
      const now = yield* Clock.currentTimeMillis
      const idled = Either.isLeft(outcome) && outcome.left.phase === "idle"
      if (progress.events > eventsBefore || now - openedAt >= config.healthyAfterMillis || idled) {
        yield* backoff.reset
      }
      lastError = Either.isLeft(outcome) && !idled ? outcome.left : undefined
    }
  })
