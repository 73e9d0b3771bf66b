/**
 * Runs an app's Layer in a `ManagedRuntime` owned by a React component.
 *
 * The runtime is created when the provider mounts and disposed when it
 * unmounts (closing every client, process and connection the Layer opened).
 * It is created in an effect, never during render, so StrictMode's double
 * mount disposes the first runtime before it was ever built, and a server
 * render touches nothing: hooks report `Loading` until the browser mounts.
 *
 * Define the Layer once, outside the component (or memoize it): a new Layer
 * object is a new runtime, and so new connections.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as React from "react"

/**
 * @since 0.2.0
 * @category models
 */
export type AnyRuntime = ManagedRuntime.ManagedRuntime<any, any>

const RuntimeContext = React.createContext<AnyRuntime | null>(null)

/**
 * @since 0.2.0
 * @category models
 */
export interface ProviderProps<R, E> {
  readonly layer: Layer.Layer<R, E, never>
  readonly children?: React.ReactNode
}

/**
 * Provides the runtime of `layer` to the hooks below it.
 *
 * @since 0.2.0
 * @category components
 */
export const Provider = <R, E>({ children, layer }: ProviderProps<R, E>): React.ReactElement => {
  const [runtime, setRuntime] = React.useState<AnyRuntime | null>(null)
  React.useEffect(() => {
    const created = ManagedRuntime.make(layer)
    setRuntime(created)
    return () => {
      setRuntime(null)
      void created.dispose()
    }
  }, [layer])
  return React.createElement(RuntimeContext.Provider, { value: runtime }, children)
}

/**
 * The runtime of the nearest `Provider`, or `null` before it mounted (and
 * during a server render).
 *
 * @since 0.2.0
 * @category hooks
 */
export const useRuntime = (): AnyRuntime | null => React.useContext(RuntimeContext)

/**
 * What a hook knows of a value the runtime produces.
 *
 * @since 0.2.0
 * @category models
 */
export type Result<A, E = unknown> =
  | { readonly _tag: "Loading" }
  | { readonly _tag: "Ready"; readonly value: A }
  | { readonly _tag: "Failed"; readonly error: E; readonly message: string }

const loading: Result<never, never> = { _tag: "Loading" }

/**
 * Runs `effect` in the provider's runtime once per runtime (and whenever
 * `deps` change), interrupting it on unmount.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useEffectResult = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  deps: React.DependencyList = []
): Result<A, E | unknown> => {
  const runtime = useRuntime()
  const [result, setResult] = React.useState<Result<A, E | unknown>>(loading)
  React.useEffect(() => {
    if (runtime === null) return
    setResult(loading)
    const cancel = runtime.runCallback(effect, {
      onExit: (exit: Exit.Exit<A, E | unknown>) => {
        if (Exit.isSuccess(exit)) return setResult({ _tag: "Ready", value: exit.value })
        if (Cause.isInterruptedOnly(exit.cause)) return
        const error = Cause.squash(exit.cause)
        setResult({ _tag: "Failed", error, message: error instanceof Error ? error.message : String(error) })
      }
    })
    return () => cancel()
    // (the effect re-runs when the runtime or any of the caller's `deps` changes: `deps` is spread on purpose)
  }, [runtime, ...deps])
  return result
}

/**
 * A service of the provider's Layer, once the Layer is built.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useService = <I, S>(tag: Context.Tag<I, S>): Result<S> => useEffectResult(tag, [tag])

/**
 * The service's value, or `undefined` while it is loading or failed.
 *
 * @since 0.2.0
 * @category utils
 */
export const valueOf = <A>(result: Result<A, unknown>): A | undefined =>
  result._tag === "Ready" ? result.value : undefined
