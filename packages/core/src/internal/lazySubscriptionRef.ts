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

/** @internal */
export const make = <A>(initial: A): LazySubscriptionRef<A> => {
  let value = initial
  let ref: SubscriptionRef.SubscriptionRef<A> | undefined
  // made in one synchronous step (it needs no service), so no `set` of another fiber comes between
  // reading `value` and the ref taking over from it
  const made = Effect.sync(() => ref ??= Effect.runSync(SubscriptionRef.make(value)))
  return {
    get: Effect.suspend(() => ref === undefined ? Effect.succeed(value) : SubscriptionRef.get(ref)),
    set: (next) =>
      Effect.suspend(() => {
        if (ref !== undefined) return SubscriptionRef.set(ref, next)
        value = next
        return Effect.void
      }),
    changes: Stream.unwrap(Effect.map(made, (ref) => ref.changes))
  }
}
