import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as JsonRpc from "../../JsonRpc.js"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import { checker } from "../engine/decode.js"
import * as FanOut from "../engine/fanOut.js"
import type * as SessionModel from "../engine/sessionModel.js"
import type { Live } from "./link.js"
import type { PendingTable } from "./pending.js"

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

/**
 * A fan-out to sliding queues, made on first use: an idle session often
 * has no subscriber, one that was never made holds nothing, and a message
 * published with no subscriber is dropped by a made one too.
 */
class LazySliding<A> {
  #hub: FanOut.FanOut<A> | undefined
  #ended = false
  readonly #capacity: number
  constructor(capacity: number) {
    this.#capacity = capacity
  }

  get get(): Effect.Effect<FanOut.FanOut<A>> {
    return Effect.suspend((): Effect.Effect<FanOut.FanOut<A>> => {
      if (this.#hub !== undefined) return Effect.succeed(this.#hub)
      const made = this.#hub = FanOut.make(Queue.sliding<A>(this.#capacity))
      return this.#ended ? Effect.as(made.shutdown, made) : Effect.succeed(made)
    })
  }

  /** Publishes when the fan-out was made (else nobody can be subscribed). */
  publish(a: A): Effect.Effect<void> {
    return this.#hub === undefined ? Effect.void : this.#hub.publish(a)
  }

  size(): number {
    return this.#hub === undefined ? 0 : this.#hub.size()
  }

  get shutdown(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.#ended = true
      return this.#hub === undefined ? Effect.void : this.#hub.shutdown
    })
  }
}

/** Notifications and stray malformed input may be dropped; what settles or answers a request may not. */
const isDroppable = (incoming: JsonRpc.Incoming) =>
  JsonRpc.isMalformed(incoming) ? incoming.id === undefined : "method" in incoming && !("id" in incoming)

/**
 * Where a connection's messages go: the listener of its inbound buffer.
 *
 * @internal
 */
export interface Sink {
  /** Takes messages in order, synchronously. */
  readonly onMessages: (messages: ReadonlyArray<JsonRpc.Incoming>) => void
  /** Waits until what arrived so far is handled, then stops the worker. */
  readonly finish: Effect.Effect<void>
  /** Stops the worker, dropping what waits for it (the connection is abandoned). */
  readonly stop: Effect.Effect<void>
}

/**
 * Everything the server sends, routed: responses settle their request in
 * the pending table, notifications go to progress callbacks, cancellations
 * or subscribers, and server requests (ping, the app's handlers) are
 * answered from fibers of their own.
 *
 * @internal
 */
export interface InboundRouter {
  /** The callback end of reading a connection (what listens to its inbound buffer); its worker forks in `runtime`. */
  readonly sink: (live: Live, runtime: Runtime.Runtime<never>) => Sink
  /** The connection is gone: the server requests it carried are interrupted, unanswered. */
  readonly abandonServerRequests: Effect.Effect<void>
  /** The notifications fan-out (sliding queues of `notificationCapacity`), made on first use. */
  readonly notifications: Effect.Effect<FanOut.FanOut<JsonRpc.Notification>>
  /** The malformed-input fan-out (sliding queues of 64), made on first use. */
  readonly malformed: Effect.Effect<FanOut.FanOut<McpError.DecodeError>>
  /** Notifications waiting for the slowest subscriber. */
  readonly retainedNotifications: () => number
  /** Ends both fan-outs (and those made later): the session is over. */
  readonly shutdown: Effect.Effect<void>
  /** Notifications lost to a full subscriber or a full backlog. */
  readonly dropped: () => number
  /** Inbound messages waiting for the worker. */
  readonly backlog: () => number
}

/**
 * The callback end of reading a connection. Responses settle in the
 * transport's callback; what needs an effect (server requests, published
 * notifications) goes, in order, to a worker, and while the worker is
 * behind everything queues behind it to keep order. The queue holds at
 * most `inboundCapacity` notifications: past it they are dropped and
 * counted (a callback cannot wait); responses and server requests are
 * always kept. The worker runs only while there is work: an idle
 * connection holds no fiber for it.
 */
class ConnectionSink implements Sink {
  readonly #work: Array<Effect.Effect<void>> = []
  #worker: Fiber.RuntimeFiber<void> | undefined
  readonly #router: Router
  readonly #live: Live
  readonly #runtime: Runtime.Runtime<never>
  constructor(router: Router, live: Live, runtime: Runtime.Runtime<never>) {
    this.#router = router
    this.#live = live
    this.#runtime = runtime
  }

  // a function of its own: the transport calls it unbound
  readonly onMessages = (messages: ReadonlyArray<JsonRpc.Incoming>): void => {
    const router = this.#router
    for (const incoming of messages) {
      if (router.backlogSize === 0) {
        const effect = router.onIncoming(this.#live, incoming)
        if (effect !== undefined) this.#enqueue(effect)
      } else if (router.backlogSize >= router.inboundCapacity && isDroppable(incoming)) {
        router.droppedCount++
      } else {
        this.#enqueue(Effect.suspend(() => router.onIncoming(this.#live, incoming) ?? Effect.void))
      }
    }
  }

  get #drain(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const next = this.#work.shift()
      if (next === undefined) {
        this.#worker = undefined
        return Effect.void
      }
      return Effect.zipRight(Effect.ensuring(next, Effect.sync(() => this.#router.backlogSize--)), this.#drain)
    })
  }

  #enqueue(effect: Effect.Effect<void>): void {
    this.#router.backlogSize++
    this.#work.push(effect)
    // it starts after this callback (so `worker` is set before it can end), as a waiting worker would
    this.#worker ??= Runtime.runFork(this.#runtime)(Effect.zipRight(Effect.yieldNow(), this.#drain))
  }

  // what arrived before the end is handled before the end is reported
  get finish(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const drained = Deferred.unsafeMake<void>(FiberId.none)
      this.#enqueue(Deferred.succeed(drained, undefined))
      return Effect.zipRight(Deferred.await(drained), this.stop)
    })
  }

  // the worker is no child of the reader: it is stopped here, on the end and on an interrupt
  get stop(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const fiber = this.#worker
      this.#worker = undefined
      this.#work.length = 0
      return Effect.zipRight(
        fiber === undefined ? Effect.void : Fiber.interrupt(fiber),
        Effect.sync(() => this.#router.backlogSize = 0)
      )
    })
  }
}

/** The router as one object whose methods read its fields (no closure per operation per session). */
class Router implements InboundRouter {
  readonly #handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>
  // made by the first server request that runs a handler (an empty `Map` is ~0.15 KiB an idle session keeps)
  #serverRequests: Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>> | undefined
  readonly #notificationHub: LazySliding<JsonRpc.Notification>
  readonly #malformedHub = new LazySliding<McpError.DecodeError>(64)
  droppedCount = 0
  backlogSize = 0

  readonly #scope: Scope.Scope
  readonly #table: PendingTable
  readonly #appNotification: SessionModel.Options["onNotification"]
  readonly #notificationCapacity: number

  constructor(
    scope: Scope.Scope,
    table: PendingTable,
    handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>,
    appNotification: SessionModel.Options["onNotification"],
    notificationCapacity: number,
    readonly inboundCapacity: number
  ) {
    this.#scope = scope
    this.#table = table
    this.#appNotification = appNotification
    this.#notificationCapacity = notificationCapacity
    this.#handlers = handlers
    this.#notificationHub = new LazySliding(notificationCapacity)
  }

  /** Publishes to the sliding queues, counting what a full subscriber loses. */
  #publishNotification(notification: JsonRpc.Notification): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.#notificationHub.size() >= this.#notificationCapacity) this.droppedCount++
      return this.#notificationHub.publish(notification)
    })
  }

  #onServerRequest(live: Live, request: JsonRpc.Request): Effect.Effect<void> {
    if (request.method === "ping") return answer(live, JsonRpc.success(request.id, {}))
    const handler = this.#handlers.get(request.method)
    if (handler === undefined) {
      return answer(
        live,
        JsonRpc.failure(request.id, {
          code: McpError.ErrorCode.MethodNotFound,
          message: `the client does not support ${request.method}`
        })
      )
    }
    const serverRequests = this.#serverRequests ??= new Map()
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
    return Effect.flatMap(
      Effect.forkIn(run, this.#scope),
      (fiber) => Effect.sync(() => serverRequests.set(request.id, fiber))
    )
  }

  /** Handles what it can synchronously; returns an effect only for the rest. */
  #onNotification(notification: JsonRpc.Notification): Effect.Effect<void> | undefined {
    switch (notification.method) {
      case "notifications/progress": {
        const decoded = progressParams(notification.params)
        if (decoded._tag === "Left") return undefined
        const callback = this.#table.progress(decoded.right)
        return callback === undefined ? undefined : guardedVoid("a progress callback", callback)
      }
      case "notifications/cancelled": {
        const requestId = notification.params?.requestId as JsonRpc.RequestId | undefined
        const fiber = requestId === undefined ? undefined : this.#serverRequests?.get(requestId)
        return fiber ? Fiber.interruptFork(fiber) : undefined
      }
      default: {
        const publish = this.#publishNotification(notification)
        const onNotification = this.#appNotification
        const first = onNotification === undefined
          ? undefined
          : guarded("onNotification", () => onNotification(notification))
        return first === undefined ? publish : Effect.zipRight(first, publish)
      }
    }
  }

  onIncoming(live: Live, incoming: JsonRpc.Incoming): Effect.Effect<void> | undefined {
    const table = this.#table
    if (JsonRpc.isMalformed(incoming)) {
      const entry = table.sentOn(incoming.id, live)
      if (entry !== undefined) {
        table.answered(entry, Exit.fail(incoming.error))
        return undefined
      }
      return Effect.zipRight(
        Effect.logWarning("mcp: ignored malformed input", incoming.error.message),
        this.#malformedHub.publish(incoming.error)
      )
    }
    if ("method" in incoming) {
      return "id" in incoming ? this.#onServerRequest(live, incoming) : this.#onNotification(incoming)
    }
    const entry = table.sentOn(incoming.id, live)
    if (entry === undefined) {
      if (incoming.id === null && "error" in incoming) {
        return Effect.logWarning("mcp: server reported an error", incoming.error.message)
      }
      // a late answer to a cancelled or timed-out request, or a server's mistake (an error code where the id belongs)
      return Effect.logDebug(
        `mcp: dropped an answer whose id matches no request in flight: ${JSON.stringify(incoming.id)}`
      )
    }
    table.answered(
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

  sink(live: Live, runtime: Runtime.Runtime<never>): Sink {
    return new ConnectionSink(this, live, runtime)
  }

  get abandonServerRequests(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const serverRequests = this.#serverRequests
      if (serverRequests === undefined) return Effect.void
      const orphans = [...serverRequests.values()]
      serverRequests.clear()
      return Effect.forEach(orphans, Fiber.interruptFork, { discard: true })
    })
  }

  get notifications(): Effect.Effect<FanOut.FanOut<JsonRpc.Notification>> {
    return this.#notificationHub.get
  }

  get malformed(): Effect.Effect<FanOut.FanOut<McpError.DecodeError>> {
    return this.#malformedHub.get
  }

  retainedNotifications(): number {
    return this.#notificationHub.size()
  }

  get shutdown(): Effect.Effect<void> {
    return Effect.zipRight(this.#notificationHub.shutdown, this.#malformedHub.shutdown)
  }

  dropped(): number {
    return this.droppedCount
  }

  backlog(): number {
    return this.backlogSize
  }
}

const answer = (live: Live, message: JsonRpc.Message) => Effect.ignore(live.connection.send(message))

/** @internal */
export const make = (options: {
  readonly table: PendingTable
  /** The app's handlers of server requests, by method. */
  readonly handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>
  readonly onNotification: SessionModel.Options["onNotification"]
  /** Bound of each notification subscriber's queue (sliding). */
  readonly notificationCapacity: number
  /** Bound of the push backlog (notifications past it are dropped). */
  readonly inboundCapacity: number
}): Effect.Effect<InboundRouter, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) =>
    new Router(
      scope,
      options.table,
      options.handlers,
      options.onNotification,
      options.notificationCapacity,
      options.inboundCapacity
    ))
