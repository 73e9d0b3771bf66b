/**
 * The interactive step in the browser.
 *
 * - `popup` (default): the authorization URL opens in a popup; the popup's
 *   callback page calls `completeCallback`, which hands the callback to the
 *   app through a `BroadcastChannel` — not `window.opener`, which
 *   Cross-Origin-Opener-Policy severs. Open the popup from a user gesture
 *   (call `OAuthClient.authorize` in a click handler), or browsers block it.
 * - `redirect`: the whole page goes to the authorization server. The PKCE
 *   verifier and state wait in the `TokenStore` (use a persistent one, e.g.
 *   `BrowserTokenStore`); on the callback page the app calls
 *   `OAuthClient.completeAuthorization(location.href)`, which then removes
 *   `code`, `state` and `iss` from the address bar (`history.replaceState`).
 *
 * The callback page never renders anything from the URL as HTML: it writes
 * fixed text with `textContent` and removes the query from the address bar.
 * Nothing here touches `window` at import time.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authorizer from "./Authorizer.js"
import { OAuthError } from "./OAuthError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The callback page's URL, as registered. */
  readonly redirectUri: string
  readonly mode?: "popup" | "redirect" | undefined
  /** The `BroadcastChannel` name shared with the callback page. Default `"mcp-effect-oauth"`. */
  readonly channel?: string | undefined
  /** `window.open` features of the popup. */
  readonly popupFeatures?: string | undefined
  /** How long to wait for the popup's callback. Default 5 minutes. */
  readonly timeout?: Duration.DurationInput | undefined
}

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultChannel = "mcp-effect-oauth"

const messageType = "mcp-effect/oauth-callback"

interface CallbackMessage {
  readonly type: typeof messageType
  readonly query: string
}

const isCallbackMessage = (u: unknown): u is CallbackMessage =>
  typeof u === "object" && u !== null && (u as CallbackMessage).type === messageType &&
  typeof (u as CallbackMessage).query === "string"

const popupSession = (options: Options) =>
  Effect.gen(function*() {
    const channel = yield* Effect.acquireRelease(
      Effect.sync(() => new BroadcastChannel(options.channel ?? defaultChannel)),
      (channel) => Effect.sync(() => channel.close())
    )
    const timeout = options.timeout ?? Duration.minutes(5)
    const authorize = (request: Authorizer.AuthorizationRequest) =>
      Effect.gen(function*() {
        const callback = yield* Deferred.make<URLSearchParams>()
        const listener = (event: MessageEvent) => {
          if (!isCallbackMessage(event.data)) return
          const params = new URLSearchParams(event.data.query)
          if (params.get("state") === request.state) Deferred.unsafeDone(callback, Effect.succeed(params))
        }
        yield* Effect.acquireRelease(
          Effect.sync(() => channel.addEventListener("message", listener)),
          () => Effect.sync(() => channel.removeEventListener("message", listener))
        )
        const popup = window.open(request.url.href, "_blank", options.popupFeatures ?? "popup,width=520,height=720")
        if (popup === null) {
          return yield* new OAuthError({
            reason: "Interaction",
            message: "the popup was blocked: start the authorization from a user gesture"
          })
        }
        return yield* Deferred.await(callback).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new OAuthError({ reason: "Interaction", message: "the popup sent no callback in time" })
          })
        )
      }).pipe(Effect.scoped)
    return { redirectUri: options.redirectUri, authorize }
  })

const redirectSession = (options: Options) =>
  Effect.succeed({
    redirectUri: options.redirectUri,
    authorize: (request: Authorizer.AuthorizationRequest) =>
      Effect.zipRight(Effect.sync(() => window.location.assign(request.url.href)), Effect.never)
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Authorizer.Service => ({
  session: options.mode === "redirect" ? redirectSession(options) : popupSession(options)
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Authorizer.Authorizer> =>
  Layer.succeed(Authorizer.Authorizer, make(options))

/**
 * @since 0.1.0
 * @category models
 */
export interface CallbackOptions {
  readonly channel?: string | undefined
  /** Where the message is written. Default `document.body`. */
  readonly target?: HTMLElement | undefined
  /** Close the popup afterwards. Default `true`. */
  readonly close?: boolean | undefined
}

/**
 * For the popup's callback page: sends the callback to the app over the
 * `BroadcastChannel`, removes the query from the address bar, shows a fixed
 * message (as text, never HTML) and closes the popup.
 *
 * @since 0.1.0
 * @category callback page
 */
export const completeCallback = (options: CallbackOptions = {}): Effect.Effect<void> =>
  Effect.sync(() => {
    const url = new URL(window.location.href)
    const channel = new BroadcastChannel(options.channel ?? defaultChannel)
    const message: CallbackMessage = { type: messageType, query: url.search }
    channel.postMessage(message)
    channel.close()
    window.history.replaceState(null, "", url.pathname)
    const target = options.target ?? document.body
    target.textContent = url.searchParams.has("error")
      ? "Authorization failed. You can close this window."
      : "Authorization complete. You can close this window."
    if (options.close !== false) window.close()
  })
