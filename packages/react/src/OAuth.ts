/**
 * The OAuth callback page of a React app: `useOAuthCallback` completes the
 * authorization code + PKCE flow the app started with `@mcp-effect/oauth`'s
 * `BrowserAuthorizer` in `popup` mode: it hands the callback to the app's
 * window over the `BroadcastChannel`, removes the query from the address bar
 * and closes the popup. Runs once, after mount (never during a server
 * render, once under StrictMode). For `redirect` mode, call
 * `OAuthClient.completeAuthorization(location.href)` instead.
 *
 * In the app's window, `useSignIns` lists the popup sign-ins in progress
 * (`BrowserAuthorizer.SignIns` of the provider's Layer) with "Cancel
 * sign-in" and "Reopen sign-in window" actions.
 *
 * @since 0.2.0
 */
import * as BrowserAuthorizer from "@mcp-effect/oauth/BrowserAuthorizer"
import * as Effect from "effect/Effect"
import * as React from "react"
import { useSubscribable } from "./Live.js"
import { useRuntime, useService, valueOf } from "./RuntimeProvider.js"

/**
 * What the callback page shows.
 *
 * @since 0.2.0
 * @category models
 */
export type CallbackState =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Done"; readonly error: string | undefined }

/**
 * Completes a popup callback on mount and reports whether the
 * authorization server sent an error. The fixed message `completeCallback`
 * writes goes to `options.target` if given (never the page's body: React
 * owns it); pass `close: false` to keep the popup open.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useOAuthCallback = (options?: BrowserAuthorizer.CallbackOptions): CallbackState => {
  const [state, setState] = React.useState<CallbackState>({ _tag: "Pending" })
  const latest = React.useRef(options)
  const done = React.useRef(false)
  React.useEffect(() => {
    if (done.current) return
    done.current = true
    // read before completeCallback clears the query from the address bar
    const error = new URL(window.location.href).searchParams.get("error") ?? undefined
    const target = latest.current?.target ?? document.createElement("div")
    Effect.runSync(BrowserAuthorizer.completeCallback({ ...latest.current, target }))
    setState({ _tag: "Done", error })
  }, [])
  return state
}

/**
 * The popup sign-ins in progress and what the user can do with them.
 *
 * @since 0.2.0
 * @category models
 */
export interface SignIns {
  /** In the order they started; `status: "MaybeClosed"` when the window reads as closed. */
  readonly signIns: ReadonlyArray<BrowserAuthorizer.SignIn>
  /** Ends the sign-in: its connection fails with `OAuthError` `Interaction` / `Cancelled`. */
  readonly cancel: (id: number) => void
  /**
   * Opens the sign-in window again; call it in the click handler (browsers
   * block popups otherwise). Rejects with `OAuthError` `PopupBlocked`.
   */
  readonly reopen: (id: number) => Promise<void>
}

const noSignIns: ReadonlyArray<BrowserAuthorizer.SignIn> = []

/**
 * The popup sign-ins of the provider's `BrowserAuthorizer.layer` (none when
 * the Layer has no `SignIns`). Show each with "Cancel sign-in", and when it
 * is `MaybeClosed` say the window was closed and offer "Reopen sign-in
 * window" as well: a window cut off by the sign-in page's
 * Cross-Origin-Opener-Policy also reads as closed, and its sign-in still
 * completes.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useSignIns = (): SignIns => {
  const runtime = useRuntime()
  const service = valueOf(useService(BrowserAuthorizer.SignIns))
  const signIns = useSubscribable(service?.signIns, noSignIns)
  const cancel = React.useCallback((id: number) => {
    if (runtime !== null && service !== undefined) runtime.runFork(service.cancel(id))
  }, [runtime, service])
  const reopen = React.useCallback(
    (id: number): Promise<void> =>
      runtime === null || service === undefined ?
        Promise.resolve() :
        runtime.runPromise(Effect.either(service.reopen(id))).then(
          // the OAuthError itself, not a FiberFailure around it
          (result) => result._tag === "Left" ? Promise.reject(result.left) : undefined
        ),
    [runtime, service]
  )
  return { signIns, cancel, reopen }
}
