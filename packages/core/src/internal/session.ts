import * as Cause from "effect/Cause"
import type * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Tracer from "effect/Tracer"
import type * as ClientSession from "../ClientSession.js"
import * as JsonRpc from "../JsonRpc.js"
import * as McpError from "../McpError.js"
import * as McpSchema from "../McpSchema.js"
import { ConnectionObserver, McpTransport, Resumption } from "../McpTransport.js"
import type { Connection, ConnectionError, Retry } from "../McpTransport.js"
import { checker } from "./decode.js"
import * as Resumer from "./resume.js"
import * as Spans from "./spans.js"
import { expiredKind, makeSweeper, type Timed } from "./timeouts.js"

/** @internal */
export const replayableMethods: ReadonlySet<string> = new Set([
  "ping",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/list",
  "tasks/result"
])

/** How long sending `notifications/cancelled` may take before it is given up. */
const cancelNoticeMillis = 5_000

/** Methods whose idle timeout resets on progress unless a request says otherwise. */
const progressMethods: ReadonlySet<string> = new Set([
  "tools/call",
  "resources/read",
  "prompts/get",
  "sampling/createMessage",
  "tasks/result"
])

interface Live {
  readonly connection: Connection
  readonly generation: number
  alive: boolean
}

type Outcome = Exit.Exit<unknown, McpError.McpClientError>

interface Pending extends Timed {
  readonly id: JsonRpc.RequestId
  readonly method: string
  readonly message: JsonRpc.Request
  readonly replay: boolean
  readonly toolName: string | undefined
  readonly progressToken: JsonRpc.RequestId | undefined
  readonly onProgress: ((p: McpSchema.ProgressNotificationParams) => void) | undefined
  readonly resetOnProgress: boolean
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

/** Milliseconds of a timeout option (`undefined` for none); a value that is no duration is a typed error. */
const toMillis = (
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

const decodeInitializeResult = checker(McpSchema.InitializeResult)

/** A server that refuses the offered version says which it supports: the message names them. */
const explainRefusedVersion = (offered: string) => (error: McpError.McpClientError): McpError.McpClientError => {
  if (error._tag !== "ProtocolError" || error.code !== McpError.ErrorCode.UnsupportedProtocolVersion) return error
  const supported = (error.data as { readonly supported?: unknown } | undefined)?.supported
  const versions = Array.isArray(supported) ? supported.filter((v): v is string => typeof v === "string") : []
  return new McpError.ProtocolError({
    ...error,
    message: `${error.message}: this client offered ${offered}` +
      (versions.length > 0 ? `, the server supports ${versions.join(", ")}` : "")
  })
}

const progressParams = checker(McpSchema.ProgressNotificationParams)

/** Runs a callback of the app on the inbound path, where nothing may throw: a throw is logged. */
const guarded = <A>(what: string, f: () => A): A | Effect.Effect<void> => {
  try {
    return f()
  } catch (e) {
    return Effect.logError(`mcp: ${what} threw`, Cause.die(e))
  }
}

const guardedVoid = (what: string, f: () => void): Effect.Effect<void> | undefined => {
  try {
    f()
    return undefined
  } catch (e) {
    return Effect.logError(`mcp: ${what} threw`, Cause.die(e))
  }
}

/** @internal */
export const make = (
  options: ClientSession.Options
): Effect.Effect<ClientSession.Service, never, McpTransport | Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* McpTransport
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock
    const handlers = new Map(Object.entries(options.handlers ?? {}))
    const notificationCapacity = options.notificationCapacity ?? 1024
    const inboundCapacity = options.inboundCapacity ?? 4096
    const offeredVersion = options.protocolVersion ?? McpSchema.LATEST_PROTOCOL_VERSION
    // a bad option closes the session at once with a typed error (every request fails with it), never a defect
    const timing = Either.all({
      idle: toMillis("requestTimeout", options.requestTimeout ?? Duration.seconds(60)),
      total: toMillis("maxTotalTimeout", options.maxTotalTimeout ?? "none"),
      initialize: toMillis("initializeTimeout", options.initializeTimeout ?? Duration.seconds(30))
    })
    const defaultIdle = Either.isRight(timing) ? timing.right.idle : undefined
    const defaultTotal = Either.isRight(timing) ? timing.right.total : undefined
    const initializeMillis = (Either.isRight(timing) ? timing.right.initialize : undefined) ?? 30_000
    const resumer = yield* Resumer.make(options.server)

    const pending = new Map<JsonRpc.RequestId, Pending>()
    const serverRequests = new Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>>()
    let nextId = 1
    let generation = 0
    let closedWith: McpError.McpClientError | undefined
    let gate = Deferred.unsafeMake<Live, McpError.McpClientError>(FiberId.none)
    let initialized: ClientSession.Initialized | undefined
    let openedFor: Live | undefined
    let everInitialized = false
    let dropped = 0
    let backlog = 0
    /** Why the last connection ended, or its initialize failed: the transport alone cannot know it. */
    let lastFailure: McpError.McpClientError | undefined
    /** Open from losing an initialized connection until the next one is ready or the session closes. */
    let reconnecting: Tracer.Span | undefined

    const state = yield* SubscriptionRef.make<ClientSession.ConnectionState>({ _tag: "Connecting", generation: 1 })
    const notifications = yield* PubSub.sliding<JsonRpc.Notification>(notificationCapacity)
    const malformed = yield* PubSub.sliding<McpError.DecodeError>(64)
    const closed = yield* Deferred.make<McpError.McpClientError>()

    /** Publishes to a sliding PubSub, counting what a full subscriber loses. */
    const publishNotification = (notification: JsonRpc.Notification) =>
      Effect.suspend(() => {
        const size = notifications.unsafeSize()
        if (size._tag === "Some" && size.value >= notificationCapacity) dropped++
        return PubSub.publish(notifications, notification)
      })

    // ---- completing requests ----------------------------------------------------------

    const settle = (entry: Pending, outcome: Outcome) => {
      if (entry.outcome !== undefined) return
      entry.outcome = outcome
      timeouts.unwatch(entry)
      entry.resume?.(outcome)
    }

    const forget = (entry: Pending) => {
      pending.delete(entry.id)
      timeouts.unwatch(entry)
    }

    /** Sends in a fiber of its own, so an outcome (a timeout) is seen while a send is still blocked. */
    const startSending = (entry: Pending, send: Effect.Effect<void, McpError.McpClientError>) =>
      Effect.map(
        Effect.fork(
          Effect.interruptible(Effect.catchAll(send, (error) => Effect.sync(() => settle(entry, Exit.fail(error)))))
        ),
        (fiber) => {
          entry.sender = fiber
        }
      )

    const timeouts = yield* makeSweeper<Pending>(clock, (entry) => {
      const kind = expiredKind(entry)
      entry.timedOut = true
      settle(
        entry,
        Exit.fail(
          new McpError.RequestTimeout({
            method: entry.method,
            kind,
            millis: kind === "idle" ? entry.idleMillis! : entry.totalMillis!
          })
        )
      )
    })

    const awaitOutcome = (entry: Pending) =>
      Effect.async<unknown, McpError.McpClientError>((resume) => {
        if (entry.outcome !== undefined) return resume(entry.outcome)
        entry.resume = resume
      })

    // ---- sending ----------------------------------------------------------------------

    const awaitLive: Effect.Effect<Live, McpError.McpClientError> = Effect.suspend(() =>
      closedWith ? Effect.fail(closedWith) : Deferred.await(gate)
    )

    const sendEntry = (entry: Pending, live: Live): Effect.Effect<void> =>
      Effect.suspend(() => {
        entry.sentOn = live
        if (entry.span !== undefined) Spans.annotateConnection(entry.span, live.connection)
        return live.connection.send(entry.message).pipe(
          Effect.catchAll((error) =>
            Effect.sync(() => {
              if (entry.sentOn !== live) return // the connection's death was already handled
              if (error._tag === "SessionExpired") {
                // the server did not know the session: it never ran this request
                entry.sentOn = undefined
                entry.awaitingResend = true
                return
              }
              if (!live.alive) return // handled by the death of the connection
              settle(entry, Exit.fail(error))
            })
          )
        )
      })

    const dispatch = (entry: Pending): Effect.Effect<void, McpError.McpClientError> =>
      openedFor?.alive && !closedWith ?
        sendEntry(entry, openedFor) :
        Effect.flatMap(awaitLive, (live) => live.alive ? sendEntry(entry, live) : dispatch(entry))

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

    /** A request, in a span of its own when a tracer is installed (one check per request when not). */
    const call = (
      method: string,
      params: Record<string, unknown> | undefined,
      requestOptions: ClientSession.RequestOptions | undefined,
      pinned?: Live
    ): Effect.Effect<unknown, McpError.McpClientError> =>
      Effect.withFiberRuntime((fiber) =>
        Spans.isTracing(fiber) ?
          Effect.useSpan(
            Spans.requestSpanName(method),
            Spans.requestSpanOptions(method, params, initialized?.protocolVersion),
            (span) => Effect.withParentSpan(register(method, params, requestOptions, pinned, span), span)
          ) :
          register(method, params, requestOptions, pinned, undefined)
      )

    const register = (
      method: string,
      params: Record<string, unknown> | undefined,
      requestOptions: ClientSession.RequestOptions | undefined,
      pinned: Live | undefined,
      span: Tracer.Span | undefined
    ): Effect.Effect<unknown, McpError.McpClientError> =>
      // registering the entry and its cleanup is one step no interrupt can split
      Effect.uninterruptibleMask((restore) => {
        const idleMillis = requestOptions?.timeout !== undefined ?
          toMillis("timeout", requestOptions.timeout) :
          Either.right(defaultIdle)
        const totalMillis = requestOptions?.maxTotalTimeout !== undefined ?
          toMillis("maxTotalTimeout", requestOptions.maxTotalTimeout) :
          Either.right(defaultTotal)
        if (Either.isLeft(idleMillis)) return Effect.fail(idleMillis.left)
        if (Either.isLeft(totalMillis)) return Effect.fail(totalMillis.left)
        const id = nextId++
        if (span !== undefined) span.attribute("jsonrpc.request.id", String(id))
        const resetOnProgress = requestOptions?.resetTimeoutOnProgress ?? progressMethods.has(method)
        const wantsProgress = resetOnProgress || requestOptions?.onProgress !== undefined
        const sentParams = wantsProgress ?
          { ...params, _meta: { ...(params?._meta as object | undefined), progressToken: id } } :
          params
        const now = clock.unsafeCurrentTimeMillis()
        const entry: Pending = {
          id,
          method,
          message: JsonRpc.request(id, method, sentParams),
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
        pending.set(id, entry)
        if (entry.idleMillis !== undefined || entry.totalMillis !== undefined) timeouts.watch(entry)
        return startSending(entry, pinned ? sendEntry(entry, pinned) : dispatch(entry)).pipe(
          Effect.zipRight(restore(awaitOutcome(entry))),
          Effect.onExit((exit) => finish(entry, exit))
        )
      })

    const finish = (entry: Pending, exit: Exit.Exit<unknown, McpError.McpClientError>) => {
      forget(entry)
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

    // ---- receiving --------------------------------------------------------------------

    const answer = (live: Live, message: JsonRpc.Message) => Effect.ignore(live.connection.send(message))

    const onServerRequest = (live: Live, request: JsonRpc.Request): Effect.Effect<void> => {
      if (request.method === "ping") return answer(live, JsonRpc.success(request.id, {}))
      const handler = handlers.get(request.method)
      if (handler === undefined) {
        return answer(
          live,
          JsonRpc.failure(request.id, {
            code: McpError.ErrorCode.MethodNotFound,
            message: `the client does not support ${request.method}`
          })
        )
      }
      const run = Effect.suspend(() => handler(request.params ?? {}, { requestId: request.id })).pipe(
        Effect.matchCauseEffect({
          onSuccess: (result) => answer(live, JsonRpc.success(request.id, result)),
          onFailure: (cause) => {
            if (Cause.isInterruptedOnly(cause)) return Effect.void // cancelled by the server: no answer
            const failure = Cause.failureOption(cause)
            const error: JsonRpc.ErrorObject = Option.isSome(failure) ?
              {
                code: failure.value.code,
                message: failure.value.message,
                ...(failure.value.data !== undefined ? { data: failure.value.data } : {})
              } :
              { code: McpError.ErrorCode.InternalError, message: "the client's handler failed unexpectedly" }
            return Effect.zipRight(
              Option.isNone(failure) ? Effect.logError("mcp server request handler died", cause) : Effect.void,
              answer(live, JsonRpc.failure(request.id, error))
            )
          }
        }),
        Effect.ensuring(Effect.sync(() => serverRequests.delete(request.id)))
      )
      return Effect.flatMap(Effect.forkIn(run, scope), (fiber) => Effect.sync(() => serverRequests.set(request.id, fiber)))
    }

    /** Handles what it can synchronously; returns an effect only for the rest. */
    const onNotification = (notification: JsonRpc.Notification): Effect.Effect<void> | undefined => {
      switch (notification.method) {
        case "notifications/progress": {
          const decoded = progressParams(notification.params)
          if (decoded._tag === "Left") return undefined
          // a request's progress token is its id
          const entry = pending.get(decoded.right.progressToken)
          if (!entry || entry.progressToken === undefined) return undefined
          if (entry.resetOnProgress) entry.lastActivity = clock.unsafeCurrentTimeMillis()
          const onProgress = entry.onProgress
          return onProgress === undefined ? undefined : guardedVoid("a progress callback", () => onProgress(decoded.right))
        }
        case "notifications/cancelled": {
          const requestId = notification.params?.requestId as JsonRpc.RequestId | undefined
          const fiber = requestId === undefined ? undefined : serverRequests.get(requestId)
          return fiber ? Fiber.interruptFork(fiber) : undefined
        }
        default: {
          const publish = publishNotification(notification)
          const onNotification = options.onNotification
          const first = onNotification === undefined ? undefined : guarded("onNotification", () => onNotification(notification))
          return first === undefined ? publish : Effect.zipRight(first, publish)
        }
      }
    }

    const onIncoming = (live: Live, incoming: JsonRpc.Incoming): Effect.Effect<void> | undefined => {
      if (JsonRpc.isMalformed(incoming)) {
        const entry = incoming.id === undefined ? undefined : pending.get(incoming.id)
        if (entry && entry.sentOn === live) {
          settle(entry, Exit.fail(incoming.error))
          return undefined
        }
        return Effect.zipRight(
          Effect.logWarning("mcp: ignored malformed input", incoming.error.message),
          PubSub.publish(malformed, incoming.error)
        )
      }
      if ("method" in incoming) {
        return "id" in incoming ? onServerRequest(live, incoming) : onNotification(incoming)
      }
      const entry = incoming.id === null ? undefined : pending.get(incoming.id)
      if (!entry || entry.sentOn !== live) {
        if (incoming.id === null && "error" in incoming) {
          return Effect.logWarning("mcp: server reported an error", incoming.error.message)
        }
        return undefined // late answer to a cancelled or timed-out request
      }
      settle(
        entry,
        "error" in incoming ?
          Exit.fail(
            new McpError.ProtocolError({
              code: incoming.error.code,
              message: incoming.error.message,
              method: entry.method,
              ...(incoming.error.data !== undefined ? { data: incoming.error.data } : {})
            })
          ) :
          Exit.succeed(incoming.result)
      )
      return undefined
    }

    /**
     * Reads a connection until it ends. With a transport's `push`, responses
     * settle in the transport's callback; what needs an effect (server
     * requests, published notifications) goes, in order, to a worker, and
     * while the worker is behind everything queues behind it to keep order.
     * The queue holds at most `inboundCapacity` notifications: past it they
     * are dropped and counted (a callback cannot wait); responses and server
     * requests are always kept.
     */
    const read = (live: Live): Effect.Effect<void, ConnectionError> => {
      const push = live.connection.push
      if (push === undefined) return Stream.runForEachChunk(live.connection.incoming, onChunk(live))
      return Effect.gen(function*() {
        const work = yield* Queue.unbounded<Effect.Effect<void>>()
        const enqueue = (effect: Effect.Effect<void>) => {
          backlog++
          work.unsafeOffer(effect)
        }
        const worker = yield* Queue.take(work).pipe(
          Effect.flatMap((effect) => Effect.ensuring(effect, Effect.sync(() => backlog--))),
          Effect.forever,
          Effect.fork
        )
        const exit = yield* Effect.exit(push((messages) => {
          for (const incoming of messages) {
            if (backlog === 0) {
              const effect = onIncoming(live, incoming)
              if (effect !== undefined) enqueue(effect)
            } else if (backlog >= inboundCapacity && isDroppable(incoming)) {
              dropped++
            } else {
              enqueue(Effect.suspend(() => onIncoming(live, incoming) ?? Effect.void))
            }
          }
        }))
        // what arrived before the end is handled before the end is reported
        const drained = yield* Deferred.make<void>()
        enqueue(Deferred.succeed(drained, undefined))
        yield* Deferred.await(drained)
        yield* Fiber.interrupt(worker)
        backlog = 0
        return yield* exit
      }).pipe(Effect.onInterrupt(() => Effect.sync(() => backlog = 0)))
    }

    /** Notifications and stray malformed input may be dropped; what settles or answers a request may not. */
    const isDroppable = (incoming: JsonRpc.Incoming) =>
      JsonRpc.isMalformed(incoming) ? incoming.id === undefined : "method" in incoming && !("id" in incoming)

    /** Settles responses as they come; runs the effects of a chunk in order after it. */
    const onChunk = (live: Live) => (chunk: Chunk.Chunk<JsonRpc.Incoming>): Effect.Effect<void> => {
      let effects: Array<Effect.Effect<void>> | undefined
      for (const incoming of chunk) {
        const effect = onIncoming(live, incoming)
        if (effect !== undefined) (effects ??= []).push(effect)
      }
      return effects === undefined ? Effect.void : Effect.forEach(effects, (effect) => effect, { discard: true })
    }

    // ---- connection lifecycle ---------------------------------------------------------

    const initialize = (live: Live) =>
      call(
        "initialize",
        {
          protocolVersion: offeredVersion,
          capabilities: options.capabilities ?? {},
          clientInfo: options.clientInfo
        },
        { timeout: Duration.millis(initializeMillis), replay: false, resetTimeoutOnProgress: false },
        live
      ).pipe(
        Effect.mapError(explainRefusedVersion(offeredVersion)),
        Effect.flatMap((raw): Effect.Effect<ClientSession.Initialized, McpError.McpClientError> => {
          const decoded = decodeInitializeResult(raw)
          if (decoded._tag === "Left") {
            return Effect.fail(
              new McpError.DecodeError({
                reason: "Schema",
                method: "initialize",
                message: `invalid initialize result: ${decoded.left}`
              })
            )
          }
          const result = decoded.right
          if (!(McpSchema.SUPPORTED_PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(result.protocolVersion)) {
            return Effect.fail(
              new McpError.ProtocolError({
                code: McpError.ErrorCode.InvalidParams,
                method: "initialize",
                message: `the server chose protocol version ${result.protocolVersion}, which this client does not speak ` +
                  `(supported: ${McpSchema.SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`
              })
            )
          }
          return Effect.succeed<ClientSession.Initialized>({
            protocolVersion: result.protocolVersion,
            serverInfo: result.serverInfo,
            capabilities: result.capabilities,
            instructions: result.instructions,
            generation: live.generation
          })
        })
      )

    /** Errors that end the session instead of trying the next connection. */
    const isFatal = (error: McpError.McpClientError) =>
      error._tag === "ProtocolError" || error._tag === "DecodeError" || error._tag === "Unauthorized" ||
      error._tag === "InsufficientScope"

    const startReconnectSpan = (live: Live) =>
      reconnecting !== undefined || !everInitialized || closedWith ? Effect.void : Effect.map(
        Effect.makeSpan("mcp.client reconnect", {
          attributes: { "mcp.connection.generation": live.generation + 1 },
          captureStackTrace: false
        }),
        (span) => {
          reconnecting = span
        }
      )

    const endReconnectSpan = (exit: Exit.Exit<void, McpError.McpClientError>) => {
      const span = reconnecting
      if (span === undefined) return
      reconnecting = undefined
      if (Exit.isFailure(exit)) Spans.annotateOutcome(span, "reconnect", exit)
      span.end(clock.unsafeCurrentTimeNanos(), exit)
    }

    const connectionLost = (live: Live, failure: McpError.McpClientError) =>
      Effect.suspend(() => {
        const reason = failure.message
        lastFailure = failure
        live.alive = false
        if (openedFor === live) gate = Deferred.unsafeMake(FiberId.none)
        for (const entry of pending.values()) {
          if (entry.sentOn !== live || entry.outcome !== undefined) continue
          entry.sentOn = undefined
          if (entry.replay) {
            entry.awaitingResend = true
          } else {
            settle(
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
        const orphans = [...serverRequests.values()]
        serverRequests.clear()
        return Effect.zipRight(
          Effect.zipRight(
            Effect.forEach(orphans, Fiber.interruptFork, { discard: true }),
            startReconnectSpan(live)
          ),
          SubscriptionRef.set(state, {
            _tag: "Reconnecting",
            generation: live.generation + 1,
            reason,
            lastFailure: failure,
            attempt: 0,
            nextDelay: undefined
          })
        )
      })

    const resendAwaiting = (live: Live) =>
      Effect.forEach(
        [...pending.values()].filter((entry) => entry.awaitingResend && entry.outcome === undefined),
        (entry) => {
          entry.awaitingResend = false
          return startSending(entry, sendEntry(entry, live))
        },
        { discard: true }
      )

    const runConnection = (connection: Connection) =>
      Effect.gen(function*() {
        const live: Live = { connection, generation: ++generation, alive: true }
        yield* SubscriptionRef.set(state, { _tag: "Connecting", generation: live.generation })
        const reader = yield* Effect.fork(read(live))
        const resumed = resumer.connected(connection, live.generation)
        const initResult = resumed !== undefined ? Either.right(resumed) : yield* initialize(live).pipe(
          (init) => reconnecting === undefined ? init : Effect.withParentSpan(init, reconnecting),
          Effect.tap(() => live.connection.send(JsonRpc.notification("notifications/initialized"))),
          Effect.raceFirst(
            Fiber.join(reader).pipe(
              Effect.zipRight(
                Effect.fail(
                  new McpError.TransportError({ reason: "Closed", message: "the connection closed during initialize" })
                )
              )
            )
          ),
          Effect.either
        )
        if (initResult._tag === "Left") {
          yield* Fiber.interrupt(reader)
          yield* connectionLost(live, initResult.left)
          if (isFatal(initResult.left)) return yield* Effect.fail(initResult.left)
          yield* Effect.logWarning("mcp: initialize failed, trying a new connection", initResult.left.message)
          return
        }
        initialized = initResult.right
        everInitialized = true
        yield* resumer.ready(initResult.right)
        yield* resendAwaiting(live)
        openedFor = live
        Deferred.unsafeDone(gate, Exit.succeed(live))
        endReconnectSpan(Exit.void)
        yield* SubscriptionRef.set(state, { _tag: "Ready", initialized: initResult.right })
        if (options.onInitialized) yield* Effect.forkIn(options.onInitialized(initResult.right), scope)
        const end = yield* Fiber.await(reader)
        yield* connectionLost(
          live,
          Exit.isSuccess(end) ?
            new McpError.TransportError({ reason: "Closed", message: "the server closed the connection" }) :
            Option.getOrElse(
              Cause.failureOption(end.cause),
              () => new McpError.TransportError({ reason: "Read", message: "the connection broke", cause: Cause.squash(end.cause) })
            )
        )
      })

    const close = (reported: McpError.McpClientError) =>
      Effect.suspend(() => {
        if (closedWith) return Effect.void
        // the transport's own error names the last failed connect; a connection that died after it was handed
        // over is known only here
        const error = reported._tag === "TransportError" && reported.reason === "Exhausted" &&
            reported.cause === undefined && lastFailure ?
          new McpError.TransportError({
            ...reported,
            message: `${reported.message} (last failure: ${lastFailure.message})`,
            cause: lastFailure
          }) :
          reported
        closedWith = error
        Deferred.unsafeDone(gate, Exit.fail(error))
        endReconnectSpan(Exit.fail(error))
        for (const entry of pending.values()) settle(entry, Exit.fail(error))
        return SubscriptionRef.set(state, { _tag: "Closed", error }).pipe(
          Effect.zipRight(Deferred.succeed(closed, error)),
          // every public stream ends with the session
          Effect.zipRight(PubSub.shutdown(notifications)),
          Effect.zipRight(PubSub.shutdown(malformed))
        )
      })

    const observer: ConnectionObserver["Type"] = {
      established: Effect.sync(() => everInitialized),
      retrying: (retry: Retry) =>
        Effect.suspend(() => {
          const failure = retry.lastFailure ?? lastFailure
          return SubscriptionRef.set(state, {
            _tag: "Reconnecting",
            generation: generation + 1,
            reason: failure?.message ?? "the connection ended",
            lastFailure: failure,
            attempt: retry.attempt,
            nextDelay: retry.delay
          })
        })
    }

    yield* (Either.isLeft(timing) ? Stream.fail(timing.left) : transport.connections).pipe(
      Stream.provideService(ConnectionObserver, observer),
      Stream.provideService(Resumption, resumer.handoff),
      Stream.runForEach(runConnection),
      Effect.matchCauseEffect({
        onSuccess: () =>
          close(new McpError.TransportError({ reason: "Closed", message: "the transport has no more connections" })),
        onFailure: (cause) =>
          Option.match(Cause.failureOption(cause), {
            onNone: () => Effect.void,
            onSome: (error) => close(error)
          })
      }),
      Effect.forkIn(scope)
    )
    yield* Effect.addFinalizer(() =>
      close(new McpError.TransportError({ reason: "Closed", message: "the session was closed" })).pipe(
        // closed on purpose: nothing to resume (a crash never gets here)
        Effect.zipRight(resumer.forget)
      )
    )

    const subscribeNotifications = Effect.suspend(() =>
      closedWith ? Effect.succeed(Stream.empty) : Stream.fromPubSub(notifications, { scoped: true })
    )

    const service: ClientSession.Service = {
      request: (method, params, requestOptions) => resumer.track(method, params, call(method, params, requestOptions)),
      notify: (method, params) =>
        Effect.flatMap(awaitLive, (live) => live.connection.send(JsonRpc.notification(method, params))),
      initialized: Effect.suspend(() =>
        initialized && openedFor?.alive && !closedWith ?
          Effect.succeed(initialized) :
          Effect.flatMap(awaitLive, () => Effect.sync(() => initialized!))
      ),
      state: Subscribable.make({
        get: SubscriptionRef.get(state),
        changes: Stream.takeUntil(state.changes, (s) => s._tag === "Closed")
      }),
      notifications: Stream.unwrapScoped(subscribeNotifications),
      subscribeNotifications,
      malformed: Stream.suspend(() => closedWith ? Stream.empty : Stream.fromPubSub(malformed)),
      closed: Deferred.await(closed),
      stats: Effect.sync(() => ({
        droppedNotifications: dropped,
        backlog,
        retainedNotifications: Option.getOrElse(notifications.unsafeSize(), () => 0),
        pending: pending.size
      }))
    }
    return service
  })
