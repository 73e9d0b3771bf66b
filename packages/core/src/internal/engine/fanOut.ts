/**
 * A message broadcast to the queues of its subscribers: what the session's
 * notification fan-out and the live list views need of a `PubSub`, without
 * it. `effect/PubSub` brings its four buffer strategies and three buffer
 * kinds into a bundle whichever one is used (about 18 KB minified of a
 * browser client); a `Queue` per subscriber is already in it.
 *
 * Each subscriber reads a queue of its own (made by `newQueue`: sliding for
 * notifications, unbounded for a value's changes). A sliding queue of
 * capacity N behaves for its subscriber as a sliding `PubSub` of capacity N
 * does: one that falls more than N messages behind loses the oldest.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/** @internal */
export interface FanOut<A> {
  /** Offers a message to every subscriber's queue (a sliding one drops its oldest when full). */
  readonly publish: (a: A) => Effect.Effect<void>
  /**
   * `publish`, its offers to the queues with room made at once, in the
   * caller's step (so a value's change and its offers are one step): the
   * effect returned makes those to full sliding queues.
   */
  readonly unsafePublish: (a: A) => Effect.Effect<void>
  /**
   * A queue of its own that receives every message published from now on
   * (after `first`, if given, read in the same step as the subscription is
   * made); it leaves the fan-out and is shut down with the scope. Once the
   * fan-out is shut down, the queue comes shut down: a take is interrupted.
   */
  readonly subscribe: (first?: () => A) => Effect.Effect<Queue.Dequeue<A>, never, Scope.Scope>
  /** The most messages waiting for one subscriber (0 with none). */
  readonly size: () => number
  /** Shuts every subscriber's queue down, and those of later subscribers. */
  readonly shutdown: Effect.Effect<void>
}

/** @internal */
export const make = <A>(newQueue: Effect.Effect<Queue.Queue<A>>): FanOut<A> => {
  const queues = new Set<Queue.Queue<A>>()
  let ended = false
  const unsafePublish = (a: A): Effect.Effect<void> => {
    let full: Array<Queue.Queue<A>> | undefined
    for (const queue of queues) if (!queue.unsafeOffer(a)) (full ??= []).push(queue)
    // a sliding queue makes room through its strategy; a queue shut down since (its subscriber left) interrupts the offer: ignored
    return full === undefined
      ? Effect.void
      : Effect.forEach(full, (queue) => Effect.exit(Queue.offer(queue, a)), { discard: true })
  }
  return {
    publish: (a) => Effect.suspend(() => unsafePublish(a)),
    unsafePublish,
    subscribe: (first) =>
      Effect.acquireRelease(
        Effect.flatMap(newQueue, (queue) =>
          Effect.suspend(() => {
            if (ended) return Effect.as(Queue.shutdown(queue), queue)
            if (first !== undefined) queue.unsafeOffer(first())
            queues.add(queue)
            return Effect.succeed(queue)
          })),
        (queue) =>
          Effect.suspend(() => {
            queues.delete(queue)
            return Queue.shutdown(queue)
          })
      ),
    size: () => {
      let most = 0
      for (const queue of queues) most = Math.max(most, Option.getOrElse(queue.unsafeSize(), () => 0))
      return most
    },
    shutdown: Effect.suspend(() => {
      ended = true
      const all = Array.from(queues)
      queues.clear()
      return Effect.forEach(all, Queue.shutdown, { discard: true })
    })
  }
}
