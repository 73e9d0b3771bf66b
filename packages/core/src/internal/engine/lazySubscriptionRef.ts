import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as FanOut from "./fanOut.js"

/**
 * A value with a stream of its changes, like a `SubscriptionRef`, whose
 * fan-out (a queue per subscriber) is made only when `changes` is first
 * run: a session's state and its client's list views are often read and
 * seldom followed, and each session would otherwise hold four of them.
 *
 * @internal
 */
export interface LazySubscriptionRef<A> {
  readonly get: Effect.Effect<A>
  readonly set: (value: A) => Effect.Effect<void>
  /** The current value, then each new one. */
  readonly changes: Stream.Stream<A>
}

// a class, so its instances share their methods instead of holding closures of their own
class Lazy<A> implements LazySubscriptionRef<A> {
  private subscribers: FanOut.FanOut<A> | undefined = undefined
  constructor(private value: A) {}

  // made when read: the views are often never read (an effect held per view is ~180 B per idle session)
  get get(): Effect.Effect<A> {
    return Effect.sync(() => this.value)
  }

  set(next: A): Effect.Effect<void> {
    // the value and the offers to the subscribers change in one step: a subscriber sees each value once, in order
    return Effect.suspend(() => {
      this.value = next
      return this.subscribers === undefined ? Effect.void : this.subscribers.unsafePublish(next)
    })
  }

  get changes(): Stream.Stream<A> {
    return Stream.unwrapScoped(Effect.suspend(() =>
      Effect.map(
        (this.subscribers ??= FanOut.make(Queue.unbounded<A>())).subscribe(() => this.value),
        (queue) => Stream.fromQueue(queue)
      )
    ))
  }
}

/** @internal */
export const make = <A>(initial: A): LazySubscriptionRef<A> => new Lazy(initial)
