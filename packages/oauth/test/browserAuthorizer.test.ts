// @vitest-environment happy-dom
// The browser authorizer and its callback page, in happy-dom.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { BrowserAuthorizer, OAuthClient, TokenStore } from "../src/index.js"
import { fakeHttp } from "./fixtures/fakeHttp.js"

const setUrl = (url: string) =>
  (window as unknown as { happyDOM: { setURL: (url: string) => void } }).happyDOM.setURL(url)

const evilCode = `<img src=x onerror="window.pwned=1">`

const nextMessage = (channel: BroadcastChannel) =>
  new Promise<unknown>((resolve) => channel.addEventListener("message", (event) => resolve(event.data), { once: true }))

describe("BrowserAuthorizer callback page", () => {
  it.effect("sends the callback over BroadcastChannel and renders no URL input as HTML", () =>
    Effect.gen(function*() {
      document.body.innerHTML = ""
      setUrl(`https://app.example/oauth/callback?code=${encodeURIComponent(evilCode)}&state=s1`)
      const channel = new BroadcastChannel(BrowserAuthorizer.defaultChannel)
      const received = nextMessage(channel)
      yield* BrowserAuthorizer.completeCallback({ close: false })
      const message = (yield* Effect.promise(() => received)) as { query: string }
      channel.close()
      expect(new URLSearchParams(message.query).get("code")).toBe(evilCode)
      expect(document.querySelector("img")).toBeNull()
      expect(document.body.innerHTML).not.toContain("<img")
      expect(document.body.textContent).toBe("Authorization complete. You can close this window.")
      expect((window as unknown as { pwned?: number }).pwned).toBeUndefined()
      expect(window.location.search).toBe("") // the code does not stay in the address bar or history
    }))

  it.effect("an error callback shows fixed text, not the server's description", () =>
    Effect.gen(function*() {
      setUrl(`https://app.example/oauth/callback?error=access_denied&error_description=${encodeURIComponent(evilCode)}`)
      yield* BrowserAuthorizer.completeCallback({ close: false })
      expect(document.querySelector("img")).toBeNull()
      expect(document.body.textContent).toBe("Authorization failed. You can close this window.")
    }))
})

describe("BrowserAuthorizer popup", () => {
  it.scoped("opens the URL in a popup and completes from the callback page's message", () =>
    Effect.gen(function*() {
      const opened: Array<string> = []
      window.open = ((url: string) => {
        opened.push(url)
        // the popup's callback page, in another browsing context of the same origin
        const popupChannel = new BroadcastChannel("test-channel")
        popupChannel.postMessage({ type: "mcp-effect/oauth-callback", query: "?code=other&state=someone-else" })
        popupChannel.postMessage({ type: "mcp-effect/oauth-callback", query: "?code=abc&state=s1" })
        popupChannel.close()
        return {} as Window
      }) as typeof window.open
      const session = yield* BrowserAuthorizer.make({
        redirectUri: "https://app.example/oauth/callback",
        channel: "test-channel"
      }).session
      const params = yield* session.authorize({
        url: new URL("https://as.example/authorize?x=1"),
        state: "s1",
        redirectUri: session.redirectUri
      })
      expect(opened).toEqual(["https://as.example/authorize?x=1"])
      expect(params.get("code")).toBe("abc")
    }))

  it.scoped("a blocked popup is an Interaction error", () =>
    Effect.gen(function*() {
      window.open = (() => null) as typeof window.open
      const session = yield* BrowserAuthorizer.make({ redirectUri: "https://app.example/cb" }).session
      const error = yield* Effect.flip(
        session.authorize({
          url: new URL("https://as.example/authorize"),
          state: "s",
          redirectUri: "https://app.example/cb"
        })
      )
      expect(error).toMatchObject({ reason: "Interaction", interaction: "PopupBlocked" })
      expect(error.message).toContain("popup was blocked")
    }))
})

describe("BrowserAuthorizer popup sign-ins", () => {
  const redirectUri = "https://app.example/oauth/callback"
  const request = {
    url: new URL("https://as.example/authorize?resource=https%3A%2F%2Fmcp.example%2Fmcp&state=s1"),
    state: "s1",
    redirectUri
  }
  /** `window.open` returning windows whose `closed` the test sets (the user closing it, or COOP cutting it off). */
  const fakeWindows = () => {
    const opened: Array<{ readonly url: string; readonly popup: { closed: boolean; close: () => void } }> = []
    window.open = ((url: string) => {
      const popup = { closed: false, close: () => void (popup.closed = true) }
      opened.push({ url, popup })
      return popup as unknown as Window
    }) as typeof window.open
    return opened
  }
  const postCallback = (channel: string, query: string) => {
    const popupChannel = new BroadcastChannel(channel)
    popupChannel.postMessage({ type: "mcp-effect/oauth-callback", query })
    popupChannel.close()
  }
  const start = (options: Partial<BrowserAuthorizer.Options> & { readonly channel: string }) =>
    Effect.gen(function*() {
      const authorizer = BrowserAuthorizer.make({ redirectUri, ...options })
      const session = yield* authorizer.session
      const fiber = yield* Effect.fork(session.authorize(request))
      yield* TestClock.adjust("1 second")
      return { fiber, signIns: authorizer.signIns, listed: authorizer.signIns.signIns.get }
    })

  it.scoped("lists the sign-in in progress; the app cancels it: the wait ends with Cancelled and its window closes", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed, signIns } = yield* start({ channel: "cancel" })
      const [signIn] = yield* listed
      expect(signIn).toMatchObject({
        origin: "https://as.example",
        resource: "https://mcp.example/mcp",
        status: "Open"
      })
      yield* signIns.cancel(signIn!.id)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ reason: "Interaction", interaction: "Cancelled" })
      expect(opened[0]!.popup.closed).toBe(true)
      expect(yield* listed).toEqual([])
      // a callback after the cancel finds nobody waiting
      postCallback("cancel", "?code=late&state=s1")
    }))

  it.scoped("a window that reads closed makes the sign-in MaybeClosed, never fails it: a window cut off by COOP still completes", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed } = yield* start({ channel: "coop" })
      // what Cross-Origin-Opener-Policy on the sign-in page does to the opener's reference
      opened[0]!.popup.closed = true
      yield* TestClock.adjust("2 seconds")
      expect((yield* listed).map((s) => s.status)).toEqual(["MaybeClosed"])
      yield* TestClock.adjust("20 seconds")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      // the user finishes in the cut-off window: its callback page posts over the BroadcastChannel
      postCallback("coop", "?code=abc&state=s1")
      const params = yield* Fiber.join(fiber)
      expect(params.get("code")).toBe("abc")
      expect(yield* listed).toEqual([])
    }))

  it.scoped("reopen opens the same authorization URL in a new window and the sign-in is Open again", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed, signIns } = yield* start({ channel: "reopen" })
      opened[0]!.popup.closed = true
      yield* TestClock.adjust("2 seconds")
      const [signIn] = yield* listed
      yield* signIns.reopen(signIn!.id)
      yield* TestClock.adjust("1 second")
      expect(opened.map((o) => o.url)).toEqual([request.url.href, request.url.href])
      expect((yield* listed).map((s) => s.status)).toEqual(["Open"])
      postCallback("reopen", "?code=again&state=s1")
      expect((yield* Fiber.join(fiber)).get("code")).toBe("again")
    }))

  it.scoped("a blocked reopen is a PopupBlocked error and the sign-in goes on", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed, signIns } = yield* start({ channel: "reopen-blocked" })
      opened[0]!.popup.closed = true
      window.open = (() => null) as typeof window.open
      const [signIn] = yield* listed
      const error = yield* Effect.flip(signIns.reopen(signIn!.id))
      expect(error).toMatchObject({ reason: "Interaction", interaction: "PopupBlocked" })
      yield* signIns.cancel(signIn!.id)
      expect((yield* Effect.flip(Fiber.join(fiber))).interaction).toBe("Cancelled")
    }))

  it.scoped("with closedPopup \"fail\", a closed window ends the wait with PopupClosed within seconds", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed } = yield* start({ channel: "fail", closedPopup: "fail" })
      opened[0]!.popup.closed = true
      yield* TestClock.adjust("2 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ reason: "Interaction", interaction: "PopupClosed" })
      expect(error.message).toMatch(/sign-in window was closed/)
      expect(yield* listed).toEqual([])
    }))

  it.scoped("with closedPopup \"fail\", a callback page that closes its own window right after posting still completes", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber } = yield* start({ channel: "fail-ok", closedPopup: "fail" })
      postCallback("fail-ok", "?code=ok&state=s1")
      opened[0]!.popup.closed = true
      yield* TestClock.adjust("600 millis")
      expect((yield* Fiber.join(fiber)).get("code")).toBe("ok")
    }))

  it.scoped("without a callback the sign-in ends at its timeout with TimedOut and its window closes", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed } = yield* start({ channel: "timeout", timeout: "20 seconds" })
      yield* TestClock.adjust("20 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ reason: "Interaction", interaction: "TimedOut" })
      expect(error.message).toMatch(/no callback within 20s/)
      expect(opened[0]!.popup.closed).toBe(true)
      expect(yield* listed).toEqual([])
    }))

  it.scoped("interrupting the wait ends the sign-in and closes its window", () =>
    Effect.gen(function*() {
      const opened = fakeWindows()
      const { fiber, listed } = yield* start({ channel: "interrupt" })
      yield* Fiber.interrupt(fiber)
      expect(opened[0]!.popup.closed).toBe(true)
      expect(yield* listed).toEqual([])
    }))

  it.effect("the layer provides the SignIns of its authorizer", () =>
    Effect.gen(function*() {
      const signIns = yield* BrowserAuthorizer.SignIns
      expect(yield* signIns.signIns.get).toEqual([])
    }).pipe(Effect.provide(BrowserAuthorizer.layer({ redirectUri }))))
})

describe("full-page redirect: completeAuthorization", () => {
  const serverUrl = "https://mcp.example.com/mcp"
  const http = fakeHttp((r) => {
    if (r.url === "https://mcp.example.com/.well-known/oauth-protected-resource/mcp") {
      return { json: { resource: serverUrl, authorization_servers: ["https://auth.example.com"] } }
    }
    if (r.url === "https://auth.example.com/.well-known/oauth-authorization-server") {
      return {
        json: {
          issuer: "https://auth.example.com",
          authorization_endpoint: "https://auth.example.com/authorize",
          token_endpoint: "https://auth.example.com/token",
          code_challenge_methods_supported: ["S256"]
        }
      }
    }
  })
  const client = OAuthClient.layerAuthorizationCode({ serverUrl, client: { clientId: "app" } }).pipe(
    Layer.provide(BrowserAuthorizer.layer({ redirectUri: "https://app.example/cb", mode: "redirect" })),
    Layer.provide(TokenStore.layerMemory),
    Layer.provide(http.layer)
  )

  it.effect("removes code, state and iss from the address bar, keeping the rest", () =>
    Effect.gen(function*() {
      setUrl("https://app.example/cb?tab=2&code=c0de&state=s7&iss=https%3A%2F%2Fauth.example.com#top")
      const oauth = yield* OAuthClient.OAuthClient
      // no pending authorization for this state: the exchange fails, the address bar is cleared all the same
      const error = yield* Effect.flip(oauth.completeAuthorization(window.location.href))
      expect(error.message).toMatch(/no pending authorization/)
      expect(window.location.href).toBe("https://app.example/cb?tab=2#top")
    }).pipe(Effect.provide(client)))

  it.effect("leaves an address bar that shows another callback alone", () =>
    Effect.gen(function*() {
      setUrl("https://app.example/cb?code=other&state=other-state")
      const oauth = yield* OAuthClient.OAuthClient
      yield* Effect.flip(oauth.completeAuthorization("?code=c0de&state=s7"))
      expect(window.location.search).toBe("?code=other&state=other-state")
    }).pipe(Effect.provide(client)))
})
