import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

/**
 * A value with a stream of its changes, whose `SubscriptionRef` (a `Ref`, a
 * `PubSub` and a semaphore) is made only when `changes` is first run: a
 * session's state and its client's list views are often read and seldom
 * followed, and each session would otherwise hold four of them.
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
  private ref: SubscriptionRef.SubscriptionRef<A> | undefined = undefined
  constructor(private value: A) {}

  readonly get: Effect.Effect<A> = Effect.suspend(() =>
    this.ref === undefined ? Effect.succeed(this.value) : SubscriptionRef.get(this.ref)
  )

  set(next: A): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.ref !== undefined) return SubscriptionRef.set(this.ref, next)
      this.value = next
      return Effect.void
    })
  }

  get changes(): Stream.Stream<A> {
    // made in one synchronous step (it needs no service), so no `set` of another fiber comes between
    // reading `value` and the ref taking over from it
    return Stream.unwrap(Effect.sync(() => (this.ref ??= Effect.runSync(SubscriptionRef.make(this.value))).changes))
  }
}

/** @internal */
export const make = <A>(initial: A): LazySubscriptionRef<A> => new Lazy(initial)
