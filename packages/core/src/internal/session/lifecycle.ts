import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as McpError from "../../McpError.js"
import { ConnectionObserver, Resumption } from "../../McpTransport.js"
import type { Connection, ConnectionError, ConnectionPull, Retry } from "../../McpTransport.js"
import type * as LazySubscriptionRef from "../engine/lazySubscriptionRef.js"
import type * as SessionModel from "../engine/sessionModel.js"
import * as Spans from "../engine/spans.js"
import type { Handshake } from "../era/codec.js"
import { handOff } from "../era/codecs.js"
import type * as Resumer from "../resume.js"
import type { InboundRouter, Sink } from "./inbound.js"
import * as Link from "./link.js"
import { notifyOn } from "./outbound.js"
import type { PendingTable } from "./pending.js"

/** Errors that end the session instead of trying the next connection. */
const isFatal = (error: McpError.McpClientError) =>
  error._tag === "ProtocolError" || error._tag === "DecodeError" || error._tag === "Unauthorized" ||
  error._tag === "InsufficientScope"

/** How far a connection's reading is: whether the session has the connection, and how its reading ended before. */
interface Reading {
  handedOver: boolean
  end: Exit.Exit<void, ConnectionError> | undefined
  /** Until the hand-over: completed with the end when it comes before. */
  gate: Deferred.Deferred<void, ConnectionError> | undefined
}

/** A connection being read, as the fiber that opens it sees it. */
interface Reader {
  /** Completes when the reading ends before the hand-over (`Reading.end` is then set). */
  readonly ended: Effect.Effect<unknown, ConnectionError>
  /** Stops the reading (the handshake failed). */
  readonly stop: Effect.Effect<void>
}

/** The error a lost connection's requests and state report. */
const lostBecause = (end: Exit.Exit<void, ConnectionError>): McpError.McpClientError =>
  Exit.isSuccess(end) ?
    new McpError.TransportError({ reason: "Closed", message: "the server closed the connection" }) :
    Option.getOrElse(
      Cause.failureOption(end.cause),
      () =>
        new McpError.TransportError({
          reason: "Read",
          message: "the connection broke",
          cause: Cause.squash(end.cause)
        })
    )

interface Closing {
  readonly previous: Link.Link
  readonly error: McpError.McpClientError
}

/**
 * What the lifecycle needs of its session.
 *
 * @internal
 */
export interface Owner {
  /** The session is over: called once, with the error every request now fails with. */
  readonly onClosed: (error: McpError.McpClientError) => void
  /** A request on a given connection (the handshake's). */
  readonly requestOn: (
    live: Link.Live,
    method: string,
    params: Record<string, unknown> | undefined,
    options: SessionModel.RequestOptions
  ) => Effect.Effect<unknown, McpError.McpClientError>
}

/** What the lifecycle works with. @internal */
export interface Options {
  readonly connections: Stream.Stream<Connection, McpError.TransportError>
  /** The same connections without a stream, when the transport offers them (`McpTransport`'s `open`). */
  readonly open: (() => ConnectionPull) | undefined
  readonly link: Link.Cell
  readonly state: LazySubscriptionRef.LazySubscriptionRef<SessionModel.ConnectionState>
  /** The session the lifecycle runs for. */
  readonly session: Owner
  readonly table: PendingTable
  readonly router: InboundRouter
  readonly handshake: Handshake
  readonly resumer: Resumer.Resumer
  readonly clock: Clock.Clock
  readonly onInitialized: SessionModel.Options["onInitialized"]
  /**
   * The first connection's handshake budget in ms (the `initializeTimeout`):
   * a session never established whose handshake takes longer ends with
   * `RequestTimeout` (`initialize`, `total`) instead of trying the next
   * connection, so a server that never answers is reported within it.
   */
  readonly firstConnectBudget: number
}

/**
 * The lifecycle as one object whose methods read its fields (an idle session
 * holds the object, not a closure per step); it is also the
 * `ConnectionObserver` the transport's reconnect schedule reports to.
 */
type Observer = ConnectionObserver

class Lifecycle implements Observer {
  generation = 0
  /**
   * The fibers that run a connection's end (one goes on with the next connection's handshake before it
   * ends): root fibers (one forked the usual way would keep its parent, the fiber that ran the handshake
   * and ended, for as long as it runs).
   */
  // made when the first one starts (an empty `Set` is ~0.12 KiB an idle session keeps)
  readers: Set<Fiber.RuntimeFiber<void, ConnectionError>> | undefined
  stopped = false
  /** The connection listened to (at most one at a time; none once it ended). */
  listening: Listener | undefined
  /** Connections pulled and not yet run. */
  readonly queued: Array<Connection> = []
  /** The transport's run, when it offers one without a stream (`McpTransport`'s `open`). */
  run: ConnectionPull | undefined
  /** Pulls the stream's next connections into `queued`, when the transport offers no run. */
  streamPull: Effect.Effect<unknown, Option.Option<McpError.TransportError>> = Effect.void
  /** Stops reading the stream, closing its last connection; the session's end runs it too. */
  closeStream: Effect.Effect<void> = Effect.void

  constructor(readonly options: Options, readonly scope: Scope.Scope) {}

  /** What the transport reads while it connects: this lifecycle as its observer, and the resumption. */
  services(): Context.Context<ConnectionObserver | Resumption> {
    return Context.make(ConnectionObserver, this as Observer).pipe(
      Context.add(Resumption, this.options.resumer.handoff)
    )
  }

  /** Pulls the next connections into `queued` (built when a connection is due: a session holds none of it). */
  get pull(): Effect.Effect<unknown, Option.Option<McpError.TransportError>> {
    const run = this.run
    return run === undefined ? this.streamPull : Effect.flatMap(
      Effect.provide(run.next, this.services()),
      (connection) => Effect.sync(() => this.queued.push(connection))
    )
  }

  get established(): Effect.Effect<boolean> {
    return Effect.sync(() => Link.wasEstablished(this.options.link.current))
  }

  retrying(retry: Retry): Effect.Effect<void> {
    return Effect.suspend(() => {
      const failure = retry.lastFailure ?? Link.lastFailure(this.options.link.current)
      return this.options.state.set({
        _tag: "Reconnecting",
        generation: this.generation + 1,
        reason: failure?.message ?? "the connection ended",
        lastFailure: failure,
        attempt: retry.attempt,
        nextDelay: retry.delay
      })
    })
  }

  /** Tracks a fiber that runs a connection's end until it ends, so that `stopReading` stops it. */
  adopt(fiber: Fiber.RuntimeFiber<void, ConnectionError>): Fiber.RuntimeFiber<void, ConnectionError> {
    if (this.stopped) fiber.unsafeInterruptAsFork(FiberId.none)
    else {
      const readers = this.readers ??= new Set()
      readers.add(fiber)
      fiber.addObserver(() => readers.delete(fiber))
    }
    return fiber
  }

  /** Interrupts the connections' readers (and waits for them): the session's scope runs it first. */
  get stopReading(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.stopped = true
      const listening = this.listening
      this.listening = undefined
      listening?.stop()
      return this.readers === undefined ? Effect.void : Fiber.interruptAll([...this.readers])
    })
  }

  /**
   * Starts reading a connection: listens to its inbound buffer (no fiber
   * until the connection ends: then one runs the end, settles the loss and
   * goes on with the next connection).
   */
  startReading(live: Link.Live, reading: Reading): Effect.Effect<Reader> {
    return Effect.map(Effect.runtime<never>(), (runtime) => {
      const listener = new Listener(this, live, reading, this.options.router.sink(live, runtime), runtime)
      // made only for the handshake: a ready connection holds no gate
      const gate = reading.gate = Deferred.unsafeMake(FiberId.none)
      listener.listen()
      return {
        ended: Deferred.await(gate),
        stop: Effect.suspend(() => {
          reading.gate = undefined
          listener.stop()
          const endFiber = listener.endFiber
          return Effect.zipRight(endFiber === undefined ? Effect.void : Fiber.interrupt(endFiber), listener.sink.stop)
        })
      }
    })
  }

  endSpan(span: Tracer.Span, exit: Exit.Exit<void, McpError.McpClientError>): void {
    if (Exit.isFailure(exit)) Spans.annotateOutcome(span, "reconnect", exit)
    span.end(this.options.clock.unsafeCurrentTimeNanos(), exit)
  }

  connectionLost(live: Link.Live, failure: McpError.McpClientError): Effect.Effect<void> {
    const { clock, link, router, state, table } = this.options
    return Effect.gen(function*() {
      const reason = failure.message
      // the reconnect span opens when a ready connection is lost
      const before = link.current
      const span = before._tag === "Ready" && before.live === live ?
        yield* Effect.makeSpan("mcp.client reconnect", {
          attributes: { "mcp.connection.generation": live.generation + 1 },
          captureStackTrace: false
        }) :
        undefined
      live.alive = false
      const current = link.current
      const after: Link.Link = current._tag === "Ready" ?
        (current.live === live && span !== undefined ?
          {
            _tag: "Reconnecting",
            ready: Link.newGate(),
            lastFailure: failure,
            previous: current.initialized,
            span
          } :
          current) :
        current._tag === "Closed" ?
        current :
        { ...current, lastFailure: failure }
      link.current = after
      if (span !== undefined && (after._tag !== "Reconnecting" || after.span !== span)) {
        span.end(clock.unsafeCurrentTimeNanos(), Exit.void)
      }
      // an answer too large to read may have been any request's: sent again, it would be too large again
      const tooLarge = failure._tag === "TransportError" && failure.phase === "message-size"
      table.lost(live, reason, tooLarge ? failure : undefined)
      yield* router.abandonServerRequests
      if (after._tag === "Closed") return
      yield* state.set({
        _tag: "Reconnecting",
        generation: live.generation + 1,
        reason,
        lastFailure: failure,
        attempt: 0,
        nextDelay: undefined
      })
    })
  }

  open(live: Link.Live): Effect.Effect<SessionModel.Initialized, McpError.McpClientError> {
    return Effect.suspend(() => {
      const current = this.options.link.current
      const handshake = this.options.handshake.run({
        request: (method, params, requestOptions) =>
          this.options.session.requestOn(live, method, params, requestOptions),
        notify: notifyOn(live.connection, this.options.table.route),
        connection: live.connection,
        generation: live.generation
      })
      return current._tag === "Reconnecting" ? Effect.withParentSpan(handshake, current.span) : handshake
    })
  }

  /** The error of the first connection's spent handshake budget, once it is spent (it ends the session). */
  budgetSpent: McpError.RequestTimeout | undefined

  /** The first connection's handshake (probe and `initialize`) within one budget. */
  withinBudget<A>(opening: Effect.Effect<A, McpError.McpClientError>): Effect.Effect<A, McpError.McpClientError> {
    const millis = this.options.firstConnectBudget
    return Effect.timeoutFail(opening, {
      duration: millis,
      onTimeout: () => this.budgetSpent = new McpError.RequestTimeout({ method: "initialize", kind: "total", millis })
    })
  }

  /**
   * Runs a connection up to its hand-over to its reader: reads it, runs the
   * handshake (or takes the resumed session) and makes it ready. `true` once
   * the reader has it (the reader goes on with the next connection when it
   * ends); `false` when it is over already and the next one is due. Fails
   * with an error that ends the session.
   */
  runConnection(connection: Connection): Effect.Effect<boolean, McpError.McpClientError> {
    const lifecycle = this
    const { link, onInitialized, resumer, state, table } = this.options
    return Effect.gen(function*() {
      const live: Link.Live = { connection, generation: ++lifecycle.generation, alive: true }
      yield* state.set({ _tag: "Connecting", generation: live.generation })
      const reading: Reading = { handedOver: false, end: undefined, gate: undefined }
      const reader = yield* lifecycle.startReading(live, reading)
      const resumed = resumer.connected(connection, live.generation)
      const opened = resumed !== undefined ?
        Either.right(resumed) :
        yield* lifecycle.open(live).pipe(
          (opening) => Link.wasEstablished(link.current) ? opening : lifecycle.withinBudget(opening),
          Effect.raceFirst(
            reader.ended.pipe(
              Effect.zipRight(
                Effect.fail(
                  new McpError.TransportError({ reason: "Closed", message: "the connection closed during initialize" })
                )
              )
            )
          ),
          Effect.either
        )
      if (opened._tag === "Left") {
        yield* reader.stop
        yield* lifecycle.connectionLost(live, opened.left)
        if (isFatal(opened.left) || opened.left === lifecycle.budgetSpent) return yield* Effect.fail(opened.left)
        yield* Effect.logWarning("mcp: initialize failed, trying a new connection", opened.left.message)
        return false
      }
      const initialized = opened.right
      if (resumed !== undefined) yield* handOff(connection, initialized.protocolVersion)
      yield* resumer.ready(initialized)
      if (connection.ready !== undefined) yield* connection.ready
      // the senders outlive this fiber (it ends at the hand-over); each is interrupted once its request settles
      yield* Effect.daemonChildren(table.resendOn(live))
      const previous = link.current
      if (previous._tag !== "Closed") link.current = { _tag: "Ready", live, initialized }
      if (previous._tag === "Closed") return false
      Link.release(previous, Exit.succeed(live))
      if (previous._tag === "Reconnecting") lifecycle.endSpan(previous.span, Exit.void)
      yield* state.set({ _tag: "Ready", initialized })
      if (onInitialized) yield* Effect.forkIn(onInitialized(initialized), lifecycle.scope)
      // the reader takes over, unless the connection ended in the meantime
      if (reading.end !== undefined) {
        yield* lifecycle.connectionLost(live, lostBecause(reading.end))
        return false
      }
      reading.handedOver = true
      reading.gate = undefined
      return true
    })
  }

  /** A connection's reading ended: told to the fiber that opens it, or settled here before the next connection. */
  afterEnd(
    live: Link.Live,
    reading: Reading,
    end: Exit.Exit<void, ConnectionError>
  ): Effect.Effect<void, ConnectionError> {
    if (!reading.handedOver) {
      reading.end = end
      return end
    }
    return Effect.zipRight(this.connectionLost(live, lostBecause(end)), this.drive)
  }

  close(reported: McpError.McpClientError): Effect.Effect<void> {
    const { link, router, session, state, table } = this.options
    return Effect.flatMap(
      Effect.sync((): Closing | undefined => {
        const current = link.current
        if (current._tag === "Closed") return undefined
        // the transport's own error names the last failed connect; a connection that died after it was
        // handed over is known only here
        const lastFailure = Link.lastFailure(current)
        const error = reported._tag === "TransportError" && reported.reason === "Exhausted" &&
            reported.cause === undefined && lastFailure ?
          new McpError.TransportError({
            ...reported,
            message: `${reported.message} (last failure: ${lastFailure.message})`,
            cause: lastFailure
          }) :
          reported
        link.current = { _tag: "Closed", error, previous: Link.lastInitialized(current) }
        return { previous: current, error }
      }),
      (closing) => {
        if (closing === undefined) return Effect.void
        const { error, previous } = closing
        Link.release(previous, Exit.fail(error))
        if (previous._tag === "Reconnecting") this.endSpan(previous.span, Exit.fail(error))
        table.failAll(error)
        return state.set({ _tag: "Closed", error }).pipe(
          Effect.zipRight(Effect.sync(() => session.onClosed(error))),
          // every public stream ends with the session
          Effect.zipRight(router.shutdown)
        )
      }
    )
  }

  /**
   * The session's scope closes: the readers stop first, then the session
   * closes on purpose (its error is made then: an error captures a stack
   * trace), so nothing is left to resume.
   */
  get closedByScope(): Effect.Effect<void> {
    return this.stopReading.pipe(
      Effect.zipRight(
        Effect.suspend(() =>
          this.close(new McpError.TransportError({ reason: "Closed", message: "the session was closed" }))
        )
      ),
      // closed on purpose: nothing to resume (a crash never gets here)
      Effect.zipRight(this.options.resumer.forget)
    )
  }

  /** The session is over for the stream: its last connection is closed first. */
  end(error: McpError.McpClientError): Effect.Effect<void> {
    return Effect.zipRight(this.closeStream, this.close(error))
  }

  /** Runs connections one after the other until one is handed over to its reader, or the stream ends. */
  get drive(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const next = this.queued.shift()
      if (next !== undefined) {
        return Effect.matchEffect(this.runConnection(next), {
          onSuccess: (handedOver) => handedOver ? Effect.void : this.drive,
          onFailure: (error) => this.end(error)
        })
      }
      return Effect.matchCauseEffect(this.pull, {
        onSuccess: () => this.drive,
        onFailure: (cause) =>
          Option.match(Cause.failureOption(cause), {
            onNone: () => Effect.void,
            onSome: Option.match({
              onNone: () =>
                this.end(
                  new McpError.TransportError({ reason: "Closed", message: "the transport has no more connections" })
                ),
              onSome: (error) => this.end(error)
            })
          })
      })
    })
  }
}

/**
 * The session's listening to one connection's inbound buffer, as one object
 * (a ready connection's reading holds it, not a closure per step).
 */
class Listener {
  /** The fiber that runs the connection's end, once it ended. */
  endFiber: Fiber.RuntimeFiber<void, ConnectionError> | undefined
  /** The end may come before `listen` returns. */
  ended = false
  #stopListening: (() => void) | undefined

  constructor(
    readonly lifecycle: Lifecycle,
    readonly live: Link.Live,
    readonly reading: Reading,
    readonly sink: Sink,
    readonly runtime: Runtime.Runtime<never>
  ) {}

  listen(): void {
    const lifecycle = this.lifecycle
    this.#stopListening = this.live.connection.inbound.listen(this.sink.onMessages, this.onEnd)
    if (lifecycle.stopped) this.stop()
    else if (!this.ended) lifecycle.listening = this
  }

  stop(): void {
    if (this.lifecycle.listening === this) this.lifecycle.listening = undefined
    this.#stopListening?.()
  }

  // a function of its own: the inbound buffer calls it unbound
  readonly onEnd = (error: ConnectionError | undefined): void => {
    this.ended = true
    const lifecycle = this.lifecycle
    if (lifecycle.listening === this) lifecycle.listening = undefined
    if (lifecycle.stopped) return
    const reading = this.reading
    const exit: Exit.Exit<void, ConnectionError> = error === undefined ? Exit.void : Exit.fail(error)
    this.endFiber = lifecycle.adopt(Runtime.runFork(
      this.runtime,
      Effect.zipRight(this.sink.finish, lifecycle.afterEnd(this.live, reading, exit)).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (reading.gate !== undefined) Deferred.unsafeDone(reading.gate, exit)
          })
        )
      )
    ))
  }
}

/**
 * The connection lifecycle: reads the transport's connections one after the
 * other, runs the handshake on each (or takes a resumed session), makes it
 * ready, and when it is lost settles or resends what it carried; the
 * `mcp.client reconnect` span covers the time between a lost connection and
 * the next ready one. Ends with `close`: the session is over.
 *
 * @internal
 */
export const run = (options: Options): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const lifecycle = new Lifecycle(options, scope)
    const queued = lifecycle.queued
    if (options.open !== undefined) {
      // the transport's runs without a stream: no stream stages, nor a scope of their own
      const run = lifecycle.run = options.open()
      const close = run.close
      yield* Scope.addFinalizerExit(scope, () => close)
      lifecycle.closeStream = close
    } else {
      const services = lifecycle.services()
      // the stream is read through a pull in a scope of its own: the session's end closes it at once
      const streamScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      lifecycle.closeStream = Scope.close(streamScope, Exit.void)
      const chunks = yield* options.connections.pipe(
        // one stage for both (each `provideService` would be a stream of its own around it)
        Stream.provideSomeContext(services),
        Stream.toPull,
        Scope.extend(streamScope)
      )
      lifecycle.streamPull = Effect.flatMap(chunks, (chunk) =>
        Effect.sync(() => {
          for (const connection of chunk) {
            queued.push(connection)
          }
        }))
    }
    yield* Effect.forkIn(lifecycle.drive, scope)
    // added last, so it runs first (a finalizer function of its own: `Scope.addFinalizer` would wrap it in one
    // more closure)
    yield* Scope.addFinalizerExit(scope, () => lifecycle.closedByScope)
  })
