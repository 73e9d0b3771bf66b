import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpSchema from "@mcp-effect/core/McpSchema"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as HttpAuth from "../HttpAuth.js"
import type { Options } from "../HttpTransport.js"
import type * as Backoff from "./backoff.js"
import * as Blocked from "./blocked.js"
import type * as Body from "./body.js"
import { type Config, resolveConfig } from "./config.js"
import type { Ctx, State } from "./context.js"
import type { Parts } from "./eras.js"
import {
  discard,
  type ExchangeError,
  type Execute,
  httpError,
  isUnreachable,
  makeExecute,
  readLimited
} from "./exchange.js"
import * as Expiry from "./expiry.js"
import * as RequestRefs from "./requestRefs.js"
import * as Resume from "./resume.js"
import * as RetryAfter from "./retryAfter.js"
import * as Sends from "./sends.js"
import { bodyKind, followPostStream, runGetStream } from "./streams.js"

/** @internal */
export { defaultSseReconnect } from "./config.js"

const acceptBoth = "application/json, text/event-stream"

/**
 * The transport's connections. A request the browser blocks (CORS or
 * network) before any request of this stream was ever answered ends the
 * stream with that error (`fromConnect`'s `giveUp`, as for stdio): when the
 * next connection is asked for, or at once when it was a connection attempt
 * that was blocked. Retrying cannot help a CORS refusal, and the app learns
 * why now rather than after the reconnect schedule.
 *
 * @internal
 */
export const makeTransport = (
  options: Options,
  auth: Option.Option<HttpAuth.Service>,
  /** the eras' parts the transport was made with (`HttpEra2025.era`, `HttpEra2026.era`) */
  eras: Parts
): Effect.Effect<McpTransport.McpTransport["Type"], McpError.TransportError, HttpClient.HttpClient> =>
  Effect.flatMap(
    Effect.suspend(() => resolveConfig(options)),
    (config) =>
      Effect.map(HttpClient.HttpClient, (client) => {
        const refs = RequestRefs.make(config)
        const execute = makeExecute(config, client, auth, refs)
        // learned once per transport: later connections go straight to HTTP+SSE
        const shared: Shared = { legacy: false, notBefore: 0, eras }
        // each run of the stream (one per session) has its own
        return McpTransport.make(() => {
          const blocked = Deferred.unsafeMake<never, McpError.TransportError>(FiberId.none)
          let answered = false
          const watched: Execute = (exchange) =>
            answered ? execute(exchange) : execute(exchange).pipe(
              Effect.tap(() => Effect.sync(() => answered = true)),
              Effect.tapError((error) =>
                !answered && Blocked.isBlocked(error) && error.phase !== Blocked.modernProbePhase ?
                  Deferred.fail(blocked, error) :
                  Effect.void
              )
            )
          return {
            connect: connect(config, watched, shared, refs),
            reconnect: options.reconnect,
            giveUp: blocked
          }
        }, config.url.href)
      })
  )

const connect = (
  config: Config,
  execute: Execute,
  shared: Shared,
  refs: RequestRefs.RequestRefs
): Effect.Effect<McpTransport.Connection, McpError.TransportError, Scope.Scope> =>
  Effect.gen(function*() {
    // a server that asked for a pause (Retry-After) gets it, on top of the reconnect schedule's delay
    const pause = shared.notBefore - (yield* Clock.currentTimeMillis)
    if (pause > 0) yield* Effect.sleep(pause)
    const handoff = Option.getOrUndefined(yield* Effect.serviceOption(McpTransport.Resumption))
    const inbound = McpTransport.makeInboundBuffer(config.inboundCapacity)
    const sends = Sends.make(refs.apply)
    const state: State = {
      sessionId: undefined,
      protocolVersion: undefined,
      failure: undefined,
      legacyEndpoint: undefined,
      getStreamStarted: false,
      modern: false
    }
    const ctx: Ctx = {
      config,
      execute,
      state,
      era: { confirmed: false },
      deliver: (items) => inbound.offer(items),
      deliverNow: (items) => inbound.offerNow(items),
      fail: (error) =>
        Effect.suspend(() => {
          if (state.failure === undefined) state.failure = error
          return Effect.zipRight(inbound.fail(error), sends.failWaiting(state.failure))
        }),
      expire: (what, status) =>
        Effect.suspend(() => {
          state.sessionId = undefined
          const error = new McpError.SessionExpired({
            message: `${config.description} no longer knows the session (HTTP ${status} on ${what})`
          })
          return Effect.as(ctx.fail(error), error)
        }),
      sessionHeaders: () => {
        const headers: Record<string, string> = {}
        if (state.sessionId !== undefined) headers["mcp-session-id"] = state.sessionId
        if (state.protocolVersion !== undefined) headers["mcp-protocol-version"] = state.protocolVersion
        return headers
      },
      resumable: (update) => handoff === undefined ? Effect.void : handoff.save(update),
      fork: sends.fork
    }

    // runs after the background fibers (forked later into the same scope) are interrupted
    yield* Effect.addFinalizer(() => terminate(ctx))
    // and after every send and the reading of its answer
    yield* Effect.addFinalizer(() =>
      sends.close(
        state.failure ?? new McpError.TransportError({
          reason: "Closed",
          message: `the connection to ${config.description} is closed`
        })
      )
    )
    // (set only by the fallback, which only a transport with the 2025 era's part has)
    if (shared.legacy && shared.eras.legacy !== undefined) {
      state.legacyEndpoint = yield* Effect.catchAll(shared.eras.legacy.open(ctx), toConnectError)
    }
    // a stored session to continue (never over HTTP+SSE, whose sessions end with their stream)
    const resume = handoff === undefined || shared.legacy ? undefined : yield* handoff.resume
    const probed = resume === undefined ? undefined : yield* Resume.probe(ctx, resume)
    const resumed = probed?._tag === "Resumed"
    if (probed?._tag === "Resumed") {
      state.getStreamStarted = true
      if (Option.isSome(probed.stream)) {
        yield* ctx.fork(runGetStream(ctx, { response: probed.stream.value, lastEventId: resume!.lastEventId }))
      }
    }

    /** POSTs one message; `accepted` is called once the server accepted it, and the fiber goes on reading the answer */
    const post =
      (message: JsonRpc.Message, options: McpTransport.SendOptions | undefined) => (sending: Sends.Sending) => {
        const endpoint = state.legacyEndpoint
        const legacy = shared.eras.legacy
        const posted = endpoint !== undefined && legacy !== undefined
          ? legacy.post(ctx, endpoint, message)
          : postStreamable(
            ctx,
            message,
            options,
            shared,
            (answer) => {
              sending.accepted()
              return answer
            },
            undefined,
            sending
          )
        // a connection whose initialize failed is of no use: end it so the session moves on
        return options?.kind === "initialize" ? Effect.tapError(posted, ctx.fail) : posted
      }

    const send = (
      message: JsonRpc.Message,
      options?: McpTransport.SendOptions
    ): Effect.Effect<void, McpTransport.ConnectionError> =>
      Effect.suspend(() => {
        if (state.failure !== undefined) return Effect.fail(state.failure)
        // (a request's send is found by its id when the session cancels it)
        return sends.run(post(message, options), JsonRpc.isRequest(message) ? message.id : undefined)
      })

    // a request's POST started from the caller's code, with no fiber of the session's own to wait for it
    // being accepted; a POST that fails before that is reported to the request (`onFailure`)
    const sendNow = (message: JsonRpc.Message, options?: McpTransport.SendOptions): boolean => {
      const onFailure = options?.onFailure
      return onFailure !== undefined && state.failure === undefined && JsonRpc.isRequest(message) &&
        sends.start(message.id, post(message, options), onFailure)
    }

    return {
      inbound,
      send,
      sendNow,
      // a request the session gave up on: a POST the server has not taken yet is aborted, as a send interrupted
      // while it waits is, and the response stream of one it took (or of a listen request posted again) is
      // closed, freeing its HTTP connection (before a notice needs one); with protocol 2026-07-28 that is the
      // cancellation itself
      cancel: sends.abandon,
      description: `http ${config.description}`,
      networkTransport: "tcp",
      sessionId: () => state.sessionId,
      resumed,
      // the session says which version (and era) it negotiated: every later request carries it
      negotiated: ({ era, protocolVersion }) =>
        Effect.sync(() => {
          state.protocolVersion = protocolVersion
          state.modern = era !== undefined ? era === "modern" : !legacyVersions.includes(protocolVersion)
        }),
      // the session is ready: open the server's own stream (HTTP+SSE has it already; a resumed session too)
      ready: Effect.suspend(() => {
        // protocol 2026-07-28 has no GET stream: change notifications come through subscriptions/listen
        if (
          state.getStreamStarted || state.legacyEndpoint !== undefined || state.failure !== undefined || state.modern
        ) {
          return Effect.void
        }
        state.getStreamStarted = true
        return ctx.fork(runGetStream(ctx))
      })
    }
  })

const legacyVersions: ReadonlyArray<string> = McpSchema.SUPPORTED_PROTOCOL_VERSIONS

const toConnectError = (error: ExchangeError): Effect.Effect<never, McpError.TransportError> =>
  error._tag === "TransportError" ? Effect.fail(error) : Effect.fail(
    new McpError.TransportError({ reason: "Connect", phase: "legacy-get", message: error.message })
  )

const terminate = (ctx: Ctx): Effect.Effect<void> =>
  Effect.suspend(() => {
    const { config, state } = ctx
    if (state.sessionId === undefined || state.legacyEndpoint !== undefined) return Effect.void
    return ctx.execute({
      method: "DELETE",
      accept: acceptBoth,
      headers: ctx.sessionHeaders(),
      phase: "delete",
      connectTimeout: true
    }).pipe(
      Effect.tap((response) => discard(config, response)),
      Effect.tap((response) =>
        response.status >= 300 && response.status !== 404 && response.status !== 405
          ? Effect.logDebug("mcp http: DELETE of the session answered", config.description, response.status)
          : Effect.void
      ),
      Effect.ignore,
      // closing must not hang on an unresponsive server
      Effect.timeout(Math.min(config.connectMillis, 5_000)),
      Effect.ignore
    )
  })

/**
 * POSTs one message. Once the server accepted it, `read` is given the
 * reading of its answer (a JSON body or an SSE stream), which never fails:
 * a send reads it in its own fiber, a re-posted listen request in a fiber
 * of the connection. `read` is called when the server accepted the message.
 * `owner` is the fiber that runs what `read` returns (a send's, see
 * `Body.read`), never given when `read` hands the reading to another fiber.
 */
const postStreamable = (
  ctx: Ctx,
  message: JsonRpc.Message,
  options: McpTransport.SendOptions | undefined,
  shared: Shared,
  read: (answer: Effect.Effect<void>) => Effect.Effect<void>,
  listenBackoff?: Backoff.Backoff,
  owner?: Body.Owner
): Effect.Effect<void, McpTransport.ConnectionError> =>
  Effect.gen(function*() {
    const { config, state } = ctx
    const isRequest = JsonRpc.isRequest(message)
    const initialize = options?.kind === "initialize"
    // a message of protocol 2026-07-28 (the session's codec says so) mirrors its body in the headers it was
    // handed and carries no session id
    const modern = options?.protocolVersion
    const part2026 = shared.eras.modern
    if (modern !== undefined && part2026 === undefined) {
      return yield* Effect.fail(
        new McpError.TransportError({
          reason: "Connect",
          phase: "options",
          message: `protocol ${modern}: this HTTP transport was made without HttpEra2026.era`
        })
      )
    }
    // a request of the 2025 era (initialize after a refused probe) returns the connection to it
    if (modern === undefined && isRequest) ctx.era.confirmed = false
    const headers = modern !== undefined
      ? part2026!.headers(modern, options?.headers)
      : ctx.sessionHeaders()
    const hadSession = state.sessionId !== undefined
    const total = config.totalMillis
    const startedAt = total === undefined ? 0 : yield* Clock.currentTimeMillis
    const body = JsonRpc.encode(message)
    // a first modern request a browser blocks (a legacy server's CORS does not list the `Mcp-*` headers)
    // says the era, not that the server is unreachable: the session falls back to `initialize`
    const modernProbe = modern !== undefined && !ctx.era.confirmed
    // (built once: sending it again after a pause runs it again)
    const postOnce = ctx.execute({
      method: "POST",
      body,
      rpcMethod: "method" in message ? message.method : undefined,
      accept: acceptBoth,
      headers,
      phase: "post",
      connectTimeout: !isRequest,
      modernProbe
    })
    // 429 / 503 with Retry-After: the server did not take the message, so it is sent again after the pause
    // (initialize is not: its connection ends, and the next one waits for the pause)
    const postWithRetry = (
      retries: number
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, ExchangeError> =>
      Effect.flatMap(postOnce, (response) =>
        // (only a 429 / 503 may ask for a pause: the clock is read for those alone)
        response.status !== 429 && response.status !== 503 ?
          Effect.succeed(response) :
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const delay = RetryAfter.delayOf(config, response, now)
            if (delay === undefined) return Effect.succeed(response)
            shared.notBefore = Math.max(shared.notBefore, now + delay)
            if (initialize || retries >= maxRetryAfterRetries) return Effect.succeed(response)
            return discard(config, response).pipe(
              Effect.zipRight(Effect.sleep(delay)),
              Effect.zipRight(postWithRetry(retries + 1))
            )
          }))
    // a message that cannot reach the server ends the connection (the session reconnects on its schedule)
    const post = Effect.tapError(postWithRetry(0), (error) => isUnreachable(error) ? ctx.fail(error) : Effect.void)
    const response = yield* (total === undefined ? post : Effect.timeoutFail(post, {
      duration: total,
      onTimeout: () => totalTimeout(config, total)
    }))
    const status = response.status
    const requestId = isRequest ? (message as JsonRpc.Request).id : undefined
    if (status >= 200 && status < 300) {
      // (the platform's response builds its headers anew at each read: read once)
      const answerHeaders = response.headers
      const kind = bodyKind(answerHeaders)
      // (202 / 204 without a body only before 2026-07-28, whose answer then comes on the GET stream, which 2026-07-28 lacks)
      const bodyless = modern === undefined && (status === 202 || status === 204)
      if (requestId !== undefined && kind === "other" && !bodyless) {
        // a request must be answered with JSON or an SSE stream: an HTML page is no answer
        yield* discard(config, response)
        return yield* Effect.fail(
          new McpError.TransportError({
            reason: "Http",
            phase: "post",
            status,
            message: `POST of ${describeMessage(message)} to ${config.description} answered HTTP ${status} with ` +
              `content type ${JSON.stringify(answerHeaders["content-type"] ?? "")}, not JSON or an SSE stream`
          })
        )
      }
      const sessionId = answerHeaders["mcp-session-id"]
      if (initialize && sessionId !== undefined && sessionId !== "") {
        state.sessionId = sessionId
        yield* ctx.resumable({ sessionId: Redacted.make(sessionId) })
      }
      if (modern !== undefined && isRequest) ctx.era.confirmed = true
      const pending = new Set<JsonRpc.RequestId>(requestId !== undefined ? [requestId] : [])
      const listen = options?.kind === "listen"
      const body = modern !== undefined && kind === "sse"
        ? part2026!.followStream(
          ctx,
          response,
          pending,
          // the listen stream is long-lived: when it drops, the same request is posted again
          listen ?
            (backoff) =>
              postStreamable(ctx, message, options, shared, (reader) => ctx.fork(reader, requestId), backoff) :
            undefined,
          listenBackoff
        )
        : readBody(ctx, response, kind, pending, owner)
      const remaining = total === undefined || (modern !== undefined && listen)
        ? undefined
        : total - ((yield* Clock.currentTimeMillis) - startedAt)
      const timed = remaining === undefined ? body : body.pipe(
        Effect.timeoutFail({ duration: Math.max(0, remaining), onTimeout: () => totalTimeout(config, total!) }),
        // the total budget ends with the last answer: running out while the rest of the stream is read only stops reading
        Effect.catchAll((error) => pending.size === 0 ? Effect.void : ctx.fail(error))
      )
      return yield* read(timed)
    }
    if (status === 404 && hadSession) {
      yield* discard(config, response)
      return yield* Effect.flip(ctx.expire(`a POST of ${describeMessage(message)}`, status))
    }
    // a JSON-RPC error for this request is its answer: no fallback, no retry
    const mayAnswer = requestId !== undefined && status !== 429 && status !== 503 &&
      bodyKind(response.headers) === "json"
    // (a 400 to a message of a session may say the server forgot it)
    const errorBody = mayAnswer || (status === 400 && hadSession) ?
      yield* Expiry.readErrorBody(config, response, "post") :
      undefined
    if (status === 400 && hadSession && errorBody !== undefined && Expiry.saysSessionUnknown(errorBody)) {
      return yield* Effect.flip(ctx.expire(`a POST of ${describeMessage(message)}`, status))
    }
    const answer = mayAnswer ? errorAnswer(errorBody, requestId) : undefined
    // before a modern server accepted anything, only a modern error answers: any other 4xx means a legacy server
    if (answer !== undefined && (modern === undefined || part2026!.isAnswer(ctx.era, status, answer))) {
      return yield* ctx.deliver([answer])
    }
    if (!mayAnswer && !(status === 400 && hadSession)) yield* discard(config, response) // else it was read already
    const legacy = shared.eras.legacy
    if (
      initialize && config.fallbackToSse && legacy !== undefined && (status === 400 || status === 404 || status === 405)
    ) {
      const endpoint = yield* legacy.open(ctx).pipe(
        Effect.mapError((error) =>
          new McpError.TransportError({
            reason: "Connect",
            phase: "legacy-get",
            status,
            message: `initialize was answered with HTTP ${status} and the HTTP+SSE fallback failed: ${error.message}`
          })
        )
      )
      state.legacyEndpoint = endpoint
      shared.legacy = true
      return yield* legacy.post(ctx, endpoint, message)
    }
    return yield* Effect.fail(httpError(config, "post", status, `POST of ${describeMessage(message)} to`))
  })

/** How often one message is sent again after a `Retry-After` pause. */
const maxRetryAfterRetries = 3

/**
 * What every connection of one transport shares: whether the server speaks
 * HTTP+SSE, and the time before which a new connection must not start
 * (a `Retry-After` of the last answer).
 */
interface Shared {
  legacy: boolean
  notBefore: number
  /** the eras' parts the transport was made with */
  readonly eras: Parts
}

/**
 * When a (small) error body is a JSON-RPC error response for `id` (or with
 * a `null` id, as servers answer when they could not read the id), returns
 * it addressed to `id`.
 */
const errorAnswer = (body: string | undefined, id: JsonRpc.RequestId): JsonRpc.Failure | undefined => {
  if (body === undefined) return undefined
  const messages = JsonRpc.decode(body, Expiry.errorBodyBytes)
  if (messages.length !== 1) return undefined
  const message = messages[0]!
  if (JsonRpc.isMalformed(message) || !JsonRpc.isFailure(message)) return undefined
  if (message.id !== id && message.id !== null) return undefined
  return { ...message, id }
}

const describeMessage = (message: JsonRpc.Message): string => "method" in message ? message.method : "a response"

const totalTimeout = (config: Config, total: number) =>
  new McpError.TransportError({
    reason: "Read",
    phase: "total",
    message: `a POST to ${config.description} took longer than ${total} ms`
  })

/** Handles the body of an accepted POST: JSON, an SSE stream, or nothing. Never fails. */
const readBody = (
  ctx: Ctx,
  response: HttpClientResponse.HttpClientResponse,
  kind: "sse" | "json" | "other",
  pending: Set<JsonRpc.RequestId>,
  owner: Body.Owner | undefined
): Effect.Effect<void> => {
  const { config } = ctx
  if (kind === "sse") return followPostStream(ctx, response, pending, owner)
  const id = pending.size === 1 ? [...pending][0] : undefined
  if (kind !== "json") {
    // 202 for a request: the answer will come on the GET stream
    return discard(config, response)
  }
  return readLimited(config, response, config.maxMessageBytes, "post", owner).pipe(
    Effect.flatMap((body) => {
      if (Option.isNone(body)) {
        return ctx.deliver([JsonRpc.malformed(
          "TooLarge",
          `a JSON body from ${config.description} exceeds the limit of ${config.maxMessageBytes} bytes`,
          id
        )])
      }
      if (body.value.trim() === "") {
        return id === undefined ? Effect.void : ctx.deliver([
          JsonRpc.malformed("Json", `${config.description} answered a request with an empty JSON body`, id)
        ])
      }
      const messages = JsonRpc.decode(body.value, config.maxMessageBytes)
      // a notification or a response may be answered with 200 and any body: only messages count
      if (id === undefined) return ctx.deliver(messages.filter((m) => !JsonRpc.isMalformed(m)))
      // a malformed body that names no id still belongs to the request this POST carried
      return ctx.deliver(
        messages.map((m) => JsonRpc.isMalformed(m) && m.id === undefined && messages.length === 1 ? { ...m, id } : m)
      )
    }),
    Effect.catchAll((error) => id === undefined ? Effect.void : ctx.fail(error))
  )
}
