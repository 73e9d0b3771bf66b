/**
 * One of the client's live views (tools, resources, prompts): the list as
 * last fetched, which fetch may still apply its list, and the refresh its
 * `list_changed` notification runs.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as LazySubscriptionRef from "../engine/lazySubscriptionRef.js"

/** @internal */
export class LiveView<A> {
  // a SubscriptionRef only once something follows the view's changes
  readonly ref = LazySubscriptionRef.make<ReadonlyArray<A>>([])
  /** The refresh a `list_changed` runs, made on the first one (`coalesced`). */
  onChanged: Effect.Effect<void> | undefined
  #started = 0
  #applied = 0

  /**
   * Runs `fetch` and applies its list (by default: sets the view) only when no
   * fetch that started later has been applied: an older fetch finishing last
   * never overwrites a newer view.
   */
  latest<E, R>(
    fetch: Effect.Effect<ReadonlyArray<A>, E, R>,
    apply: (list: ReadonlyArray<A>) => Effect.Effect<void> = (list) => this.ref.set(list)
  ): Effect.Effect<ReadonlyArray<A>, E, R> {
    return Effect.suspend(() => {
      const ticket = ++this.#started
      return Effect.tap(fetch, (list) => {
        if (ticket < this.#applied) return Effect.void
        this.#applied = ticket
        return apply(list)
      })
    })
  }
}

/**
 * Runs `effect` in the background when asked, at most once at a time: asked
 * again while it runs, it runs once more after (however often it was asked).
 *
 * @internal
 */
export const coalesced = (effect: Effect.Effect<void>, scope: Scope.Scope): Effect.Effect<void> => {
  let running = false
  let again = false
  const loop: Effect.Effect<void> = Effect.zipRight(
    effect,
    Effect.suspend(() => {
      if (!again) {
        running = false
        return Effect.void
      }
      again = false
      return loop
    })
  )
  return Effect.suspend(() => {
    if (running) {
      again = true
      return Effect.void
    }
    running = true
    return Effect.asVoid(Effect.forkIn(loop, scope))
  })
}
