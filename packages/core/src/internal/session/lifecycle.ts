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
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import type * as ClientSession from "../../ClientSession.js"
import * as McpError from "../../McpError.js"
import { ConnectionObserver, Resumption } from "../../McpTransport.js"
import type { Connection, ConnectionError, Retry } from "../../McpTransport.js"
import type * as LazySubscriptionRef from "../lazySubscriptionRef.js"
import type * as Resumer from "../resume.js"
import * as Reconnect from "../reconnect.js"
import * as Spans from "../spans.js"
import { type Handshake, handOff, notifyOn } from "./handshake.js"
import type { InboundRouter } from "./inbound.js"
import * as Link from "./link.js"
import type { PendingTable } from "./pending.js"

/** Errors that end the session instead of trying the next connection. */
const isFatal = (error: McpError.McpClientError) =>
  error._tag === "ProtocolError" || error._tag === "DecodeError" || error._tag === "Unauthorized" ||
  error._tag === "InsufficientScope"

/** How far a connection's reader is: whether it has the connection, and how its reading ended before it did. */
interface Reading {
  handedOver: boolean
  end: Exit.Exit<void, ConnectionError> | undefined
  /** With `listen`, until the hand-over: completed with the end when it comes before. */
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
 * The connection lifecycle: reads the transport's connections one after the
 * other, runs the handshake on each (or takes a resumed session), makes it
 * ready, and when it is lost settles or resends what it carried; the
 * `mcp.client reconnect` span covers the time between a lost connection and
 * the next ready one. Ends with `close`: the session is over.
 *
 * @internal
 */
export const run = (options: {
  readonly connections: Stream.Stream<Connection, McpError.TransportError>
  readonly link: Ref.Ref<Link.Link>
  readonly state: LazySubscriptionRef.LazySubscriptionRef<ClientSession.ConnectionState>
  /** The session is over: called once, with the error every request now fails with. */
  readonly onClosed: (error: McpError.McpClientError) => void
  readonly table: PendingTable
  readonly router: InboundRouter
  readonly handshake: Handshake
  readonly resumer: Resumer.Resumer
  readonly clock: Clock.Clock
  /** A request on a given connection (the handshake's). */
  readonly requestOn: (
    live: Link.Live,
    method: string,
    params: Record<string, unknown> | undefined,
    options: ClientSession.RequestOptions
  ) => Effect.Effect<unknown, McpError.McpClientError>
  readonly onInitialized: ClientSession.Options["onInitialized"]
}): Effect.Effect<
  {
    readonly close: (error: McpError.McpClientError) => Effect.Effect<void>
    /** Interrupts the connections' readers (and waits for them): the session's scope runs it first. */
    readonly stopReading: Effect.Effect<void>
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const { clock, link, onClosed, resumer, router, state, table } = options
    const scope = yield* Effect.scope
    let generation = 0

    /** The readers that run (a reader goes on with the next connection's handshake before it ends). */
    const readers = new Set<Fiber.RuntimeFiber<void, ConnectionError>>()
    let stopped = false
    /**
     * Forks a connection's reader as a root fiber, stopped by `stopReading`: a fiber forked the
     * usual way (`forkIn`) keeps its parent, here the fiber that ran the handshake and then ended,
     * for as long as it runs (an idle session would hold that dead fiber and its fiber refs).
     */
    const forkReader = (effect: Effect.Effect<void, ConnectionError>) =>
      Effect.map(Effect.runtime<never>(), (runtime) => adopt(Runtime.runFork(runtime, effect)))
    /** Tracks a reader fiber until it ends, so that `stopReading` stops it. */
    const adopt = (fiber: Fiber.RuntimeFiber<void, ConnectionError>) => {
      if (stopped) fiber.unsafeInterruptAsFork(FiberId.none)
      else {
        readers.add(fiber)
        fiber.addObserver(() => readers.delete(fiber))
      }
      return fiber
    }
    /** Connections read through `listen`: their stop functions (at most one; none once it ended). */
    const listening = new Set<() => void>()
    const stopReading = Effect.suspend(() => {
      stopped = true
      for (const stop of listening) stop()
      listening.clear()
      return Fiber.interruptAll([...readers])
    })

    /**
     * Starts reading a connection: through its `listen` when it has one (no
     * fiber until the connection ends: then one runs the end, settles the
     * loss and goes on with the next connection), else in a reader fiber.
     */
    const startReading = (live: Link.Live, reading: Reading): Effect.Effect<Reader> => {
      const listen = live.connection.listen
      if (listen === undefined) {
        return Effect.map(forkReader(read(live, reading)), (fiber) => ({ ended: Fiber.join(fiber), stop: Fiber.interrupt(fiber) }))
      }
      return Effect.map(Effect.runtime<never>(), (runtime) => {
        const sink = router.sink(live, runtime)
        // made only for the handshake: a ready connection holds no gate
        reading.gate = Deferred.unsafeMake(FiberId.none)
        let endFiber: Fiber.RuntimeFiber<void, ConnectionError> | undefined
        // the end may come before `listen` returns
        let ended = false
        // what `listening` holds: made before `listen`, as the end callback may run before it returns
        const stop = () => stopListening()
        const stopListening: () => void = listen(sink.onMessages, (ending) => {
          ended = true
          listening.delete(stop)
          if (stopped) return
          endFiber = adopt(Runtime.runFork(
            runtime,
            Effect.flatMap(Effect.exit(ending), (exit) => Effect.zipRight(sink.finish, afterEnd(live, reading, exit))).pipe(
              Effect.onExit((exit) =>
                Effect.sync(() => {
                  if (reading.gate !== undefined) Deferred.unsafeDone(reading.gate, exit)
                })
              )
            )
          ))
        })
        if (stopped) stop()
        else if (!ended) listening.add(stop)
        const gate = reading.gate
        return {
          ended: Deferred.await(gate),
          stop: Effect.suspend(() => {
            reading.gate = undefined
            listening.delete(stop)
            stop()
            return Effect.zipRight(endFiber === undefined ? Effect.void : Fiber.interrupt(endFiber), sink.stop)
          })
        }
      })
    }

    const endSpan = (span: Tracer.Span, exit: Exit.Exit<void, McpError.McpClientError>) => {
      if (Exit.isFailure(exit)) Spans.annotateOutcome(span, "reconnect", exit)
      span.end(clock.unsafeCurrentTimeNanos(), exit)
    }

    const connectionLost = (live: Link.Live, failure: McpError.McpClientError) =>
      Effect.gen(function*() {
        const reason = failure.message
        // the reconnect span opens when a ready connection is lost
        const before = yield* Ref.get(link)
        const span = before._tag === "Ready" && before.live === live ?
          yield* Effect.makeSpan("mcp.client reconnect", {
            attributes: { "mcp.connection.generation": live.generation + 1 },
            captureStackTrace: false
          }) :
          undefined
        const after = yield* Ref.modify(link, (current): [Link.Link, Link.Link] => {
          live.alive = false
          const next: Link.Link = current._tag === "Ready" ?
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
          return [next, next]
        })
        if (span !== undefined && (after._tag !== "Reconnecting" || after.span !== span)) span.end(clock.unsafeCurrentTimeNanos(), Exit.void)
        table.lost(live, reason)
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

    const open = (live: Link.Live) =>
      Effect.flatMap(Ref.get(link), (current) => {
        const handshake = options.handshake.run({
          request: (method, params, requestOptions) => options.requestOn(live, method, params, requestOptions),
          notify: notifyOn(live.connection),
          connection: live.connection,
          generation: live.generation
        })
        return current._tag === "Reconnecting" ? Effect.withParentSpan(handshake, current.span) : handshake
      })

    /**
     * Runs a connection up to its hand-over to its reader: reads it, runs the
     * handshake (or takes the resumed session) and makes it ready. `true` once
     * the reader has it (the reader goes on with the next connection when it
     * ends); `false` when it is over already and the next one is due. Fails
     * with an error that ends the session.
     */
    const runConnection = (connection: Connection): Effect.Effect<boolean, McpError.McpClientError> =>
      Effect.gen(function*() {
        const live: Link.Live = { connection, generation: ++generation, alive: true }
        yield* state.set({ _tag: "Connecting", generation: live.generation })
        const reading: Reading = { handedOver: false, end: undefined, gate: undefined }
        const reader = yield* startReading(live, reading)
        const resumed = resumer.connected(connection, live.generation)
        const opened = resumed !== undefined ?
          Either.right(resumed) :
          yield* open(live).pipe(
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
          yield* connectionLost(live, opened.left)
          if (isFatal(opened.left)) return yield* Effect.fail(opened.left)
          yield* Effect.logWarning("mcp: initialize failed, trying a new connection", opened.left.message)
          return false
        }
        const initialized = opened.right
        if (resumed !== undefined) yield* handOff(connection, initialized.protocolVersion)
        yield* resumer.ready(initialized)
        if (connection.ready !== undefined) yield* connection.ready
        // the senders outlive this fiber (it ends at the hand-over); each is interrupted once its request settles
        yield* Effect.daemonChildren(table.resendOn(live))
        const previous = yield* Ref.modify(link, (current): [Link.Link, Link.Link] => [
          current,
          current._tag === "Closed" ? current : { _tag: "Ready", live, initialized }
        ])
        if (previous._tag === "Closed") return false
        Link.release(previous, Exit.succeed(live))
        if (previous._tag === "Reconnecting") endSpan(previous.span, Exit.void)
        yield* state.set({ _tag: "Ready", initialized })
        if (options.onInitialized) yield* Effect.forkIn(options.onInitialized(initialized), scope)
        // the reader takes over, unless the connection ended in the meantime
        if (reading.end !== undefined) {
          yield* connectionLost(live, lostBecause(reading.end))
          return false
        }
        reading.handedOver = true
        reading.gate = undefined
        return true
      })

    /**
     * Reads a connection until it ends. Before the hand-over the fiber that
     * opens the connection sees the end (it joins this one); after it, this
     * fiber settles the loss and goes on with the next connection, so an
     * idle session has one fiber here, not one waiting for another.
     */
    const read = (live: Link.Live, reading: Reading): Effect.Effect<void, ConnectionError> =>
      Effect.flatMap(Effect.exit(router.read(live)), (end) => afterEnd(live, reading, end))

    /** A connection's reading ended: told to the fiber that opens it, or settled here before the next connection. */
    const afterEnd = (
      live: Link.Live,
      reading: Reading,
      end: Exit.Exit<void, ConnectionError>
    ): Effect.Effect<void, ConnectionError> => {
      if (!reading.handedOver) {
        reading.end = end
        return end
      }
      return Effect.zipRight(connectionLost(live, lostBecause(end)), drive)
    }

    const close = (reported: McpError.McpClientError) =>
      Effect.flatMap(
        Ref.modify(link, (current): [Closing | undefined, Link.Link] => {
          if (current._tag === "Closed") return [undefined, current]
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
          return [{ previous: current, error }, { _tag: "Closed", error, previous: Link.lastInitialized(current) }]
        }),
        (closing) => {
          if (closing === undefined) return Effect.void
          const { error, previous } = closing
          Link.release(previous, Exit.fail(error))
          if (previous._tag === "Reconnecting") endSpan(previous.span, Exit.fail(error))
          table.failAll(error)
          return state.set({ _tag: "Closed", error }).pipe(
            Effect.zipRight(Effect.sync(() => onClosed(error))),
            // every public stream ends with the session
            Effect.zipRight(router.shutdown)
          )
        }
      )

    const observer: ConnectionObserver["Type"] = {
      established: Effect.map(Ref.get(link), Link.wasEstablished),
      retrying: (retry: Retry) =>
        Effect.flatMap(Ref.get(link), (current) => {
          const failure = retry.lastFailure ?? Link.lastFailure(current)
          return state.set({
            _tag: "Reconnecting",
            generation: generation + 1,
            reason: failure?.message ?? "the connection ended",
            lastFailure: failure,
            attempt: retry.attempt,
            nextDelay: retry.delay
          })
        })
    }

    const services = Context.make(ConnectionObserver, observer).pipe(Context.add(Resumption, resumer.handoff))
    const run = Reconnect.startRun(options.connections)
    /** Connections pulled and not yet run. */
    const queued: Array<Connection> = []
    let pull: Effect.Effect<unknown, Option.Option<McpError.TransportError>>
    /** Stops reading the stream, closing its last connection; the session's end runs it too. */
    let closeStream: Effect.Effect<void>
    if (Reconnect.isPulls(run)) {
      // a `fromConnect` stream, read without its stream stages, nor a scope of its own
      yield* Scope.addFinalizer(scope, run.close)
      closeStream = run.close
      pull = Effect.flatMap(Effect.provide(run.pull, services), (connection) => Effect.sync(() => queued.push(connection)))
    } else {
      // the stream is read through a pull in a scope of its own: the session's end closes it at once
      const streamScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      closeStream = Scope.close(streamScope, Exit.void)
      const chunks = yield* run.pipe(
        // one stage for both (each `provideService` would be a stream of its own around it)
        Stream.provideSomeContext(services),
        Stream.toPull,
        Scope.extend(streamScope)
      )
      pull = Effect.flatMap(chunks, (chunk) =>
        Effect.sync(() => {
          for (const connection of chunk) queued.push(connection)
        }))
    }

    /** The session is over for the stream: its last connection is closed first. */
    const end = (error: McpError.McpClientError) => Effect.zipRight(closeStream, close(error))

    /** Runs connections one after the other until one is handed over to its reader, or the stream ends. */
    const drive: Effect.Effect<void> = Effect.suspend(() => {
      const next = queued.shift()
      if (next !== undefined) {
        return Effect.matchEffect(runConnection(next), {
          onSuccess: (handedOver) => handedOver ? Effect.void : drive,
          onFailure: end
        })
      }
      return Effect.matchCauseEffect(pull, {
        onSuccess: () => drive,
        onFailure: (cause) =>
          Option.match(Cause.failureOption(cause), {
            onNone: () => Effect.void,
            onSome: Option.match({
              onNone: () =>
                end(new McpError.TransportError({ reason: "Closed", message: "the transport has no more connections" })),
              onSome: end
            })
          })
      })
    })
    yield* Effect.forkIn(drive, scope)
    return { close, stopReading }
  })
