/**
 * Keeps the authorization response out of the browser's address bar and
 * history once a full-page redirect flow is finished (the popup's callback
 * page clears its whole query itself).
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** The authorization-response parameters (RFC 6749 4.1.2, RFC 9207, OpenID session management). */
const responseParameters = ["code", "state", "iss", "error", "error_description", "error_uri", "session_state"]

/**
 * Removes the callback's parameters from the current URL with
 * `history.replaceState`, when the page shows that callback (its `state`).
 * Other query parameters and the hash stay. Does nothing outside a browser.
 *
 * @internal
 */
export const clearCallback = (callback: URLSearchParams): Effect.Effect<void> =>
  Effect.sync(() => {
    if (typeof window === "undefined" || typeof window.history?.replaceState !== "function") return
    const state = callback.get("state")
    const url = new URL(window.location.href)
    if (state === null || url.searchParams.get("state") !== state) return
    for (const name of responseParameters) url.searchParams.delete(name)
    try {
      window.history.replaceState(window.history.state, "", url.href)
    } catch {
      // a sandboxed document may refuse; the flow's outcome does not depend on it
    }
  })
