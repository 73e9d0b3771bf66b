// @vitest-environment happy-dom
// The browser authorizer and its callback page, in happy-dom.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { BrowserAuthorizer } from "../src/index.js"

const setUrl = (url: string) => (window as unknown as { happyDOM: { setURL: (url: string) => void } }).happyDOM.setURL(url)

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
        session.authorize({ url: new URL("https://as.example/authorize"), state: "s", redirectUri: "https://app.example/cb" })
      )
      expect(error.reason).toBe("Interaction")
      expect(error.message).toContain("popup was blocked")
    }))
})
