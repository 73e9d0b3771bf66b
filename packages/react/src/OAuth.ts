/**
 * The OAuth callback page of a React app: `useOAuthCallback` completes the
 * authorization code + PKCE flow the app started with `@mcp-effect/oauth`'s
 * `BrowserAuthorizer` in `popup` mode: it hands the callback to the app's
 * window over the `BroadcastChannel`, removes the query from the address bar
 * and closes the popup. Runs once, after mount (never during a server
 * render, once under StrictMode). For `redirect` mode, call
 * `OAuthClient.completeAuthorization(location.href)` instead.
 *
 * @since 0.2.0
 */
import * as BrowserAuthorizer from "@mcp-effect/oauth/BrowserAuthorizer"
import * as Effect from "effect/Effect"
import * as React from "react"

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
