/**
 * Live values in React: a `Subscribable` (the client's tools, its connection
 * state, a registry's servers) read with `useSyncExternalStore`, so every
 * component sees the same value in a render (no tearing).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type * as Subscribable from "effect/Subscribable"
import * as React from "react"

interface Store<A> {
  readonly subscribe: (onChange: () => void) => () => void
  readonly get: () => A
}

const makeStore = <A>(source: Subscribable.Subscribable<A> | undefined, initial: A): Store<A> => {
  if (source === undefined) return { subscribe: () => () => {}, get: () => initial }
  const now = Effect.runSyncExit(source.get)
  let value = Exit.isSuccess(now) ? now.value : initial
  return {
    get: () => value,
    subscribe: (onChange) => {
      const fiber = Effect.runFork(
        Stream.runForEach(source.changes, (next) =>
          Effect.sync(() => {
            if (Object.is(next, value)) return
            value = next
            onChange()
          }))
      )
      return () => Effect.runFork(Fiber.interrupt(fiber))
    }
  }
}

/**
 * The current value of `source`, re-rendering when it changes; `initial`
 * while there is no source yet (the runtime is still being built).
 *
 * @since 0.2.0
 * @category hooks
 */
export const useSubscribable = <A>(source: Subscribable.Subscribable<A> | undefined, initial: A): A => {
  const store = React.useMemo(() => makeStore(source, initial), [source])
  return React.useSyncExternalStore(store.subscribe, store.get, store.get)
}
