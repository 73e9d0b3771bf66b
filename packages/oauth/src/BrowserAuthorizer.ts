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
 * A popup sign-in in progress is listed by the `SignIns` service (provided by
 * `layer` next to the `Authorizer`): the app shows it, cancels it (the wait
 * ends with `OAuthError` `Interaction` / `Cancelled` and the window closes)
 * or opens its window again. Every sign-in ends within `timeout` (`TimedOut`).
 *
 * A closed window: `popup.closed` cannot tell a window the user closed from
 * one whose sign-in page sent Cross-Origin-Opener-Policy (the browser then
 * cuts the opener's link, `closed` reads `true`, and the user is still
 * signing in; the callback still arrives over the `BroadcastChannel`). So by
 * default (`closedPopup: "ask"`) a window that reads closed turns the sign-in
 * `MaybeClosed` and the wait goes on: the app says the window was closed and
 * offers "Reopen sign-in window" and "Cancel sign-in", and a sign-in that was
 * only cut off still completes. With an authorization server known not to
 * send COOP, `closedPopup: "fail"` ends the wait within a second (`PopupClosed`).
 *
 * The callback page never renders anything from the URL as HTML: it writes
 * fixed text with `textContent` and removes the query from the address bar.
 * Nothing here touches `window` at import time.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type * as Subscribable from "effect/Subscribable"
import * as Authorizer from "./Authorizer.js"
import * as SignInRegistry from "./internal/signIns.js"
import { type Interaction, OAuthError } from "./OAuthError.js"

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
  /** How long a popup sign-in may wait for its callback: then it fails with `TimedOut`. Default 5 minutes. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * What a popup whose `closed` reads `true` means (since 0.2.0). `"ask"`
   * (default): maybe closed, maybe cut off by the sign-in page's
   * Cross-Origin-Opener-Policy: the sign-in turns `MaybeClosed` and keeps
   * waiting for the callback; the app offers to reopen or cancel it.
   * `"fail"`: closed: the wait ends with `PopupClosed` once the window has
   * read as closed for a second (only for authorization servers that send no
   * COOP).
   */
  readonly closedPopup?: "ask" | "fail" | undefined
  /** How often the popup's `closed` is read (since 0.2.0). Default 500 milliseconds. */
  readonly pollInterval?: Duration.DurationInput | undefined
}

/**
 * `Open`: the sign-in window is open. `MaybeClosed`: the window reads as
 * closed: the user closed it, or its sign-in page cut the link to this page
 * (Cross-Origin-Opener-Policy) and the user may still finish there.
 *
 * @since 0.2.0
 * @category models
 */
export type SignInStatus = "Open" | "MaybeClosed"

/**
 * A popup sign-in waiting for its callback.
 *
 * @since 0.2.0
 * @category models
 */
export interface SignIn {
  readonly id: number
  /** The authorization server's origin: where the user signs in. */
  readonly origin: string
  /** The resource (MCP server) the sign-in is for, as the authorization request names it. */
  readonly resource: string | undefined
  readonly status: SignInStatus
  /** When the window was opened (epoch milliseconds, the `Clock`'s). */
  readonly startedAt: number
}

/**
 * The popup sign-ins of one authorizer, for the app's UI.
 *
 * @since 0.2.0
 * @category models
 */
export interface SignInsService {
  /** The sign-ins in progress, in the order they started. */
  readonly signIns: Subscribable.Subscribable<ReadonlyArray<SignIn>>
  /**
   * Ends a sign-in: its wait fails with `OAuthError` `Interaction` /
   * `Cancelled`, nothing reaches the token endpoint, and its window is
   * closed (when the page still can). Nothing happens for a sign-in that has
   * ended.
   */
  readonly cancel: (id: number) => Effect.Effect<void>
  /**
   * Opens the sign-in's authorization URL in a new window (the same request:
   * whichever window brings the callback first completes it) and closes the
   * old one when the page still can. Run it in a click handler: browsers
   * block popups opened without a user gesture (`PopupBlocked`).
   */
  readonly reopen: (id: number) => Effect.Effect<void, OAuthError>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class SignIns extends Context.Tag("@mcp-effect/oauth/BrowserAuthorizer/SignIns")<SignIns, SignInsService>() {}

/**
 * An authorizer with its sign-ins.
 *
 * @since 0.2.0
 * @category models
 */
export interface BrowserAuthorizer extends Authorizer.Service {
  readonly signIns: SignInsService
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

const interactionError = (interaction: Interaction, message: string) =>
  new OAuthError({ reason: "Interaction", interaction, message })

const blocked = () =>
  interactionError("PopupBlocked", "the popup was blocked: start the authorization from a user gesture")

/** Closes a window this page opened; a window cut off by COOP (or closed) ignores it. */
const closeWindow = (popup: Window) => {
  try {
    if (!popup.closed) popup.close()
  } catch {
    // nothing to close
  }
}

/** How long a window reads as closed before the sign-in says so. */
const closedGrace = Duration.seconds(1)

const popupSession = (options: Options, registry: SignInRegistry.Registry) =>
  Effect.gen(function*() {
    const channel = yield* Effect.acquireRelease(
      Effect.sync(() => new BroadcastChannel(options.channel ?? defaultChannel)),
      (channel) => Effect.sync(() => channel.close())
    )
    const timeout = Duration.decode(options.timeout ?? Duration.minutes(5))
    const poll = Schedule.spaced(options.pollInterval ?? Duration.millis(500))
    const features = options.popupFeatures ?? "popup,width=520,height=720"
    const authorize = (request: Authorizer.AuthorizationRequest) =>
      Effect.gen(function*() {
        const callback = yield* Deferred.make<URLSearchParams, OAuthError>()
        const listener = (event: MessageEvent) => {
          if (!isCallbackMessage(event.data)) return
          const params = new URLSearchParams(event.data.query)
          if (params.get("state") === request.state) Deferred.unsafeDone(callback, Exit.succeed(params))
        }
        yield* Effect.acquireRelease(
          Effect.sync(() => channel.addEventListener("message", listener)),
          () => Effect.sync(() => channel.removeEventListener("message", listener))
        )
        const opened = window.open(request.url.href, "_blank", features)
        if (opened === null) return yield* blocked()
        let popup: Window = opened
        // a sign-in that ends without its callback (cancelled, timed out, interrupted) takes its window along
        yield* Effect.addFinalizer((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => closeWindow(popup)))
        const startedAt = yield* Clock.currentTimeMillis
        const id = yield* registry.track({
          origin: request.url.origin,
          resource: request.url.searchParams.get("resource") ?? undefined,
          status: "Open",
          startedAt
        }, (id) => ({
          cancel: Deferred.fail(callback, interactionError("Cancelled", "the sign-in was cancelled")).pipe(
            Effect.asVoid
          ),
          reopen: Effect.suspend(() => {
            const next = window.open(request.url.href, "_blank", features)
            if (next === null) return Effect.fail(blocked())
            closeWindow(popup)
            popup = next
            return registry.setStatus(id, "Open")
          })
        }))
        const closed = Effect.suspend(() => {
          if (!popup.closed) return registry.setStatus(id, "Open")
          return options.closedPopup === "fail"
            ? Deferred.fail(
              callback,
              interactionError("PopupClosed", "the sign-in window was closed before the authorization finished")
            )
            : registry.setStatus(id, "MaybeClosed")
        })
        // the callback page closes its window right after posting: its message gets a moment to arrive first
        yield* Effect.suspend(() => popup.closed ? Effect.zipRight(Effect.sleep(closedGrace), closed) : closed).pipe(
          Effect.repeat(poll),
          Effect.forkScoped
        )
        return yield* Deferred.await(callback).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () =>
              interactionError("TimedOut", `the sign-in window sent no callback within ${Duration.format(timeout)}`)
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
export const make = (options: Options): BrowserAuthorizer => {
  const registry = SignInRegistry.unsafeMake()
  return {
    session: options.mode === "redirect" ? redirectSession(options) : popupSession(options, registry),
    signIns: registry.service
  }
}

/**
 * The `Authorizer` and its `SignIns` (since 0.2.0), fresh for each build.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Authorizer.Authorizer | SignIns> =>
  Layer.effectContext(Effect.sync(() => {
    const authorizer = make(options)
    return Context.make(Authorizer.Authorizer, authorizer).pipe(Context.add(SignIns, authorizer.signIns))
  }))

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
