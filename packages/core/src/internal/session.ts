import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import type * as McpError from "../McpError.js"
import * as McpSchema from "../McpSchema.js"
import { McpTransport } from "../McpTransport.js"
import * as RequestHeaders from "../RequestHeaders.js"
import * as TaskPolling from "../TaskPolling.js"
import * as LazySubscriptionRef from "./engine/lazySubscriptionRef.js"
import type * as SessionModel from "./engine/sessionModel.js"
import * as Spans from "./engine/spans.js"
import type { EraCodec, FollowContext } from "./era/codec.js"
import * as Codecs from "./era/codecs.js"
import * as EraHandshake from "./era/handshake.js"
import * as Negotiation from "./era/negotiation.js"
import * as Methods from "./methods.js"
import * as Resumer from "./resume.js"
import * as Inbound from "./session/inbound.js"
import * as Lifecycle from "./session/lifecycle.js"
import * as Link from "./session/link.js"
import * as Outbound from "./session/outbound.js"
import * as Pending from "./session/pending.js"
import * as Request from "./session/request.js"

const noHandlers: ReadonlyMap<string, SessionModel.ServerRequestHandler> = new Map()

/** @internal */
export const replayableMethods = Request.replayableMethods

/**
 * Sets the log level a session of the 2026 era sends in every request's
 * `_meta`; `false` for a session not made here (it has no such slot).
 *
 * @internal
 */
export const setLogLevel = (session: SessionModel.Service, level: McpSchema.LoggingLevel): boolean => {
  if (!(session instanceof Session)) return false
  session.setLogLevel(level)
  return true
}

/**
 * How the session follows a result's rounds (its requests without rounds,
 * its input handlers, its task polling); `undefined` for a session not made
 * here. A resumed 2026 task is followed with it.
 *
 * @internal
 */
export const followContext = (session: SessionModel.Service): FollowContext | undefined =>
  session instanceof Session ? session.followContext : undefined

/**
 * The session's service as one object whose members read its fields: the
 * effects and streams are built when read (getters on the prototype), and
 * `request` and `notify` are functions of their own (callers may take them
 * off the object). An idle session holds its state, not a closure per member.
 */
class Session implements SessionModel.Service {
  // made when something first waits for the session's end before it (most sessions never are); `close`
  // sets the link to `Closed` before it calls `onClosed`
  closedGate: Deferred.Deferred<McpError.McpClientError> | undefined
  /** The members built on first read (a session holds none of their streams until then). */
  built: { -readonly [K in "state" | "notifications" | "malformed"]?: SessionModel.Service[K] } | undefined

  constructor(
    readonly table: Pending.PendingTable,
    readonly router: Inbound.InboundRouter,
    readonly link: Link.Cell,
    readonly connectionState: LazySubscriptionRef.LazySubscriptionRef<SessionModel.ConnectionState>,
    readonly resumer: Resumer.Resumer,
    readonly inputHandlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>,
    readonly polling: TaskPolling.Service,
    readonly handshake: EraHandshake.NegotiatingHandshake
  ) {}

  /** A request on a given connection (the handshake's). */
  requestOn(
    live: Link.Live,
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: SessionModel.RequestOptions
  ): Effect.Effect<unknown, McpError.McpClientError> {
    return this.call(method, params, requestOptions, live)
  }

  onClosed(error: McpError.McpClientError): void {
    if (this.closedGate !== undefined) Deferred.unsafeDone(this.closedGate, Exit.succeed(error))
  }

  /** Puts a request on the ready connection, waiting for one when there is none (the table calls it unbound). */
  readonly dispatch = (entry: Request.Pending): Effect.Effect<void, McpError.McpClientError> =>
    Effect.flatMap(
      Link.awaitLive(this.link),
      (live) => live.alive ? this.table.sendOn(entry, live) : this.dispatch(entry)
    )

  /**
   * A request, in a span of its own when a tracer is installed (one check per
   * request when not). The link is read, the entry made and the request sent
   * in the one step that starts it.
   */
  call(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: SessionModel.RequestOptions | undefined,
    pinned: Link.Live | undefined
  ): Effect.Effect<unknown, McpError.McpClientError> {
    return Effect.withFiberRuntime((fiber) => {
      const table = this.table
      const current = this.link.current
      const ready = pinned ?? (current._tag === "Ready" ? current.live : undefined)
      const send = pinned === undefined ? this.dispatch : (entry: Request.Pending) => table.sendOn(entry, pinned)
      return Spans.isTracing(fiber) ?
        Effect.useSpan(
          Spans.requestSpanName(method),
          Spans.requestSpanOptions(method, params, Link.lastInitialized(current)?.protocolVersion),
          (span) => Effect.withParentSpan(table.request(method, params, requestOptions, span, send, ready, fiber), span)
        ) :
        table.request(method, params, requestOptions, undefined, send, ready, fiber)
    })
  }

  get followContext(): FollowContext {
    return {
      // a request as the rounds send it: no rounds, no task handles of its own
      request: (method, params, requestOptions) => this.call(method, params, requestOptions, undefined),
      handlers: this.inputHandlers,
      polling: this.polling
    }
  }

  readonly request: SessionModel.Service["request"] = (method, params, requestOptions) => {
    const call = this.call(method, params, requestOptions, undefined)
    return this.resumer.track(
      method,
      params,
      Methods.lookup(method)?.inputRounds === true && this.mayAskForRounds() ?
        // one step after the answer, whatever it is: most answers are the result itself
        Effect.flatMap(call, (first) => {
          // the era's codec: in 2026-07-28 a result may ask for input, or be a task handle
          const current = Link.lastInitialized(this.link.current)
          const codec = current === undefined ? undefined : Codecs.of(current.protocolVersion)
          return codec === undefined || codec.classify(method, first) === "complete" ?
            Effect.succeed(first) :
            codec.follow(method, params, first, requestOptions, this.followContext)
        }) :
        call
    )
  }

  /**
   * Whether an answer may be other than the result itself: not on a ready
   * connection whose era has no result rounds (a request sent while no
   * connection is ready is classified when answered, by the era of that
   * time).
   */
  mayAskForRounds(): boolean {
    const current = this.link.current
    return current._tag !== "Ready" || Codecs.of(current.initialized.protocolVersion).resultRounds
  }

  /**
   * Sets the log level the 2026 era sends in every request's `_meta` (the
   * 2025 era sends `logging/setLevel` instead, and ignores it).
   */
  setLogLevel(level: McpSchema.LoggingLevel): void {
    this.handshake.setLogLevel(level)
  }

  readonly notify: SessionModel.Service["notify"] = (method, params) =>
    Effect.flatMap(
      Link.awaitLive(this.link),
      (live) => Outbound.sendNotification(live.connection, this.table.route, method, params)
    )

  get initialized(): SessionModel.Service["initialized"] {
    const link = this.link
    return Effect.flatMap(Link.get(link), (current) =>
      current._tag === "Ready" ?
        Effect.succeed(current.initialized) :
        Effect.flatMap(Link.awaitLive(link), () => Effect.map(Link.get(link), (now) => Link.lastInitialized(now)!)))
  }

  get isClosed(): Effect.Effect<boolean> {
    return Effect.map(Link.get(this.link), (current) => current._tag === "Closed")
  }

  // the streams are built when run (`Stream.suspend`): a session holds none of their stages until then
  get state(): SessionModel.Service["state"] {
    const state = this.connectionState
    return (this.built ??= {}).state ??= Subscribable.make({
      get: state.get,
      changes: Stream.suspend(() => Stream.takeUntil(state.changes, (s) => s._tag === "Closed"))
    })
  }

  get subscribeNotifications(): SessionModel.Service["subscribeNotifications"] {
    return Effect.flatMap(this.isClosed, (closed) =>
      closed ?
        Effect.succeed(Stream.empty) :
        Effect.flatMap(this.router.notifications, (hub) =>
          Effect.map(hub.subscribe(), (queue) => Stream.fromQueue(queue))))
  }

  get notifications(): SessionModel.Service["notifications"] {
    return (this.built ??= {}).notifications ??= Stream.suspend(() => Stream.unwrapScoped(this.subscribeNotifications))
  }

  get malformed(): SessionModel.Service["malformed"] {
    return (this.built ??= {}).malformed ??= Stream.suspend(() =>
      Stream.unwrap(
        Effect.flatMap(this.isClosed, (closed) =>
          closed ?
            Effect.succeed(Stream.empty) :
            Effect.map(
              this.router.malformed,
              (hub) => Stream.flatMap(Stream.scoped(hub.subscribe()), (queue) => Stream.fromQueue(queue))
            ))
      )
    )
  }

  get closed(): SessionModel.Service["closed"] {
    return Effect.flatMap(Link.get(this.link), (current) =>
      current._tag === "Closed" ?
        Effect.succeed(current.error) :
        Deferred.await(this.closedGate ??= Deferred.unsafeMake(FiberId.none)))
  }

  get stats(): SessionModel.Service["stats"] {
    return Effect.sync(() => ({
      droppedNotifications: this.router.dropped(),
      backlog: this.router.backlog(),
      retainedNotifications: this.router.retainedNotifications(),
      pending: this.table.size()
    }))
  }
}

/** Whether the era of the last initialized connection cancels a request by closing its stream. */
const cancelsByClosing = (link: Link.Cell) => (): boolean => {
  const initialized = Link.lastInitialized(link.current)
  return initialized !== undefined && Codecs.of(initialized.protocolVersion).cancel === "stream"
}

/**
 * The session engine, assembled: the pending table (`session/pending.ts`),
 * the inbound router (`session/inbound.ts`), the handshake of the protocol
 * era (`era/handshake.ts`) and the connection lifecycle
 * (`session/lifecycle.ts`) around one connection state (`session/link.ts`).
 *
 * @internal
 */
export const make = (
  options: SessionModel.Options,
  /** The eras' codecs the session may speak (`ProtocolEra2025.era`, ...): its only source of era code. */
  codecs: ReadonlyArray<EraCodec>
): Effect.Effect<SessionModel.Service, never, McpTransport | Scope.Scope> =>
  Effect.gen(function*() {
    Codecs.register(codecs)
    const transport = yield* McpTransport
    const clock = yield* Effect.clock
    // a bad option closes the session at once with a typed error (every request fails with it), never a defect
    const timing = Either.all({
      idle: Request.toMillis("requestTimeout", options.requestTimeout ?? Duration.seconds(60)),
      total: Request.toMillis("maxTotalTimeout", options.maxTotalTimeout ?? "none"),
      initialize: Request.toMillis("initializeTimeout", options.initializeTimeout ?? Duration.seconds(30)),
      offer: Negotiation.offerOf(options, codecs)
    })
    // (what the store keeps is keyed by the server's name and where the transport reaches it)
    const resumer = yield* Resumer.make(options.server, transport.endpoint)
    const handshake = EraHandshake.make({
      codecs,
      offer: Either.isRight(timing) ? timing.right.offer : { modern: [], legacy: McpSchema.LATEST_PROTOCOL_VERSION },
      capabilities: options.capabilities ?? {},
      clientInfo: options.clientInfo,
      timeout: Duration.millis((Either.isRight(timing) ? timing.right.initialize : undefined) ?? 30_000),
      // at most one failing probe per server: the era it spoke is remembered across sessions
      spoken: resumer.era,
      onSpoken: resumer.rememberEra,
      // the `Mcp-*` headers of 2026-era messages, for the transports that send them (HTTP provides it)
      headersFor: Option.getOrUndefined(yield* Effect.serviceOption(RequestHeaders.RequestHeaders))?.headersFor
    })
    const polling = Option.getOrElse(yield* Effect.serviceOption(TaskPolling.TaskPolling), () => TaskPolling.defaults)
    const link = yield* Link.make
    const table = yield* Pending.make({
      clock,
      // the era of the connection the request went out on: its codec says whether closing the request's stream cancels it
      cancelByClosing: cancelsByClosing(link),
      defaultIdle: Either.isRight(timing) ? timing.right.idle : undefined,
      defaultTotal: Either.isRight(timing) ? timing.right.total : undefined,
      decorate: handshake.decorate,
      route: handshake.sendOptions
    })
    // one map for the router and the input rounds; one empty map for every session without handlers
    const handlers = options.handlers === undefined || Object.keys(options.handlers).length === 0 ?
      noHandlers :
      new Map(Object.entries(options.handlers))
    const router = yield* Inbound.make({
      table,
      handlers,
      onNotification: options.onNotification,
      notificationCapacity: options.notificationCapacity ?? 1024,
      inboundCapacity: options.inboundCapacity ?? 4096
    })
    const session = new Session(
      table,
      router,
      link,
      LazySubscriptionRef.make<SessionModel.ConnectionState>({ _tag: "Connecting", generation: 1 }),
      resumer,
      handlers,
      polling,
      handshake
    )

    // the session's scope closes it (`Lifecycle.run` adds the finalizer last, so it runs first)
    yield* Lifecycle.run({
      connections: Either.isLeft(timing) ? Stream.fail(timing.left) : transport.connections,
      open: Either.isLeft(timing) ? undefined : transport.open,
      link,
      state: session.connectionState,
      session,
      table,
      router,
      handshake,
      resumer,
      clock,
      onInitialized: options.onInitialized,
      firstConnectBudget: (Either.isRight(timing) ? timing.right.initialize : undefined) ?? 30_000
    })
    return session
  })
