import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"

/** What the sweeper needs to know of a request with a deadline. */
export interface Timed {
  readonly idleMillis: number | undefined
  readonly totalMillis: number | undefined
  readonly startedAt: number
  /** Last time the request showed life (sent, progress): the idle budget counts from here. */
  lastActivity: number
}

const deadlineOf = (timed: Timed) =>
  Math.min(
    timed.idleMillis === undefined ? Infinity : timed.lastActivity + timed.idleMillis,
    timed.totalMillis === undefined ? Infinity : timed.startedAt + timed.totalMillis
  )

/** Which budget ran out first. */
export const expiredKind = (timed: Timed): "idle" | "total" =>
  timed.idleMillis !== undefined &&
    (timed.totalMillis === undefined || timed.lastActivity + timed.idleMillis <= timed.startedAt + timed.totalMillis) ?
    "idle" :
    "total"

/**
 * One table of requests the shared sweeper of its clock watches: an object
 * with the two methods (a session's pending table is one itself, so it
 * holds no closures for them).
 */
export interface Member<T extends Timed> {
  watched(): Iterable<T>
  /** Runs inside the sweeper: must be synchronous and must not throw. */
  expire(timed: T): void
}

/** The one sweeper of a clock: every table that watches deadlines on that clock, and the fiber that sleeps for them. */
interface Shared {
  readonly members: Set<Member<Timed>>
  sleeper: Fiber.RuntimeFiber<void> | undefined
  sleepingUntil: number
  latestDeadline: number
}

/** One sweeper per clock (the live clock is one object; a `TestClock` is one per test). */
const sweepers = new WeakMap<Clock.Clock, Shared>()

const stop = (shared: Shared) => {
  const fiber = shared.sleeper
  shared.sleeper = undefined
  shared.sleepingUntil = Infinity
  shared.latestDeadline = -Infinity
  fiber?.unsafeInterruptAsFork(FiberId.none)
}

/**
 * A table's watch on its clock's sweeper.
 *
 * @internal
 */
export class Watch<T extends Timed> {
  closed = false
  constructor(readonly clock: Clock.Clock, readonly shared: Shared, readonly member: Member<T>) {}

  /** Watches the deadline of a request that the table now holds. */
  watch(timed: T): void {
    if (this.closed) return
    const self = this.shared
    const deadline = deadlineOf(timed)
    if (deadline > self.latestDeadline) self.latestDeadline = deadline
    if (deadline < self.sleepingUntil) {
      self.sleepingUntil = deadline
      const replaced = self.sleeper
      self.sleeper = Runtime.runFork(Runtime.defaultRuntime)(sleepUntil(this.clock, self, deadline))
      replaced?.unsafeInterruptAsFork(FiberId.none)
    }
  }

  /** Whether a fiber sleeps towards a deadline of this clock now (for tests). */
  sleeping(): boolean {
    return this.shared.sleeper !== undefined
  }

  /** The table's scope closed: the last table gone, no timer is left behind. */
  close(): Effect.Effect<void> {
    this.closed = true
    this.shared.members.delete(this.member as Member<Timed>)
    if (this.shared.members.size === 0) stop(this.shared)
    return Effect.void
  }
}

/**
 * At most one fiber per `Clock`, shared by every session on it, watches
 * every request's deadline, instead of a timer per request or a fiber per
 * session: an idle session holds no fiber for its deadlines. It reads the
 * deadlines from each caller's own table of requests (`member.watched`), so a
 * request costs no insert or removal here. The fiber sleeps on the `Clock`
 * until the earliest deadline (or, with none left, the latest one it was
 * shown; so `TestClock` drives it) and ends once nothing is left to wait
 * for, or once the last table's scope has closed. A deadline earlier than
 * the one it sleeps towards replaces it with a fiber sleeping less long (a
 * sleep cannot be shortened, and a race of the sleep with a wake-up signal
 * would cost two more fibers all the time). The fiber runs in the default
 * runtime: it holds none of a session's services, and `expire` must be
 * synchronous.
 *
 * @internal
 */
export const makeSweeper = <T extends Timed>(
  clock: Clock.Clock,
  member: Member<T>
): Effect.Effect<Watch<T>, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => {
    let shared = sweepers.get(clock)
    if (shared === undefined) {
      shared = { members: new Set(), sleeper: undefined, sleepingUntil: Infinity, latestDeadline: -Infinity }
      sweepers.set(clock, shared)
    }
    shared.members.add(member as Member<Timed>)
    const watch = new Watch(clock, shared, member)
    // a finalizer function of its own: `Scope.addFinalizer` (or `Effect.addFinalizer`, which also keeps a copy of the
    // fiber's refs) would wrap it in closures a session holds for its life
    return Effect.as(Scope.addFinalizerExit(scope, () => watch.close()), watch)
  })

/** Expires what is due in every table; the time to wake next, `Infinity` for never. */
const sweep = (shared: Shared, now: number) => {
  let next = Infinity
  for (const member of shared.members) {
    for (const timed of member.watched()) {
      const deadline = deadlineOf(timed)
      if (deadline <= now) {
        member.expire(timed)
      } else if (deadline < next) {
        next = deadline
      }
    }
  }
  // with nothing left to watch it still sleeps towards the latest deadline it was shown: requests
  // that finish before the sweeper runs must not make every later request start it again
  return next === Infinity && shared.latestDeadline > now ? shared.latestDeadline : next
}

const sleepUntil = (clock: Clock.Clock, shared: Shared, until: number): Effect.Effect<void> =>
  Effect.zipRight(
    clock.sleep(Duration.millis(Math.max(0, until - clock.unsafeCurrentTimeMillis()))),
    Effect.withFiberRuntime<void>((fiber) => {
      // replaced by a sleeper for an earlier deadline: that one sweeps
      if (shared.sleeper !== fiber) return Effect.void
      const next = sweep(shared, clock.unsafeCurrentTimeMillis())
      shared.sleepingUntil = next
      if (next !== Infinity) return sleepUntil(clock, shared, next)
      shared.sleeper = undefined
      return Effect.void
    })
  )
