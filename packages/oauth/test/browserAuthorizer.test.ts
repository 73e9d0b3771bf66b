// @vitest-environment happy-dom
// The browser authorizer and its callback page, in happy-dom.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { BrowserAuthorizer, OAuthClient, TokenStore } from "../src/index.js"
import { fakeHttp } from "./fixtures/fakeHttp.js"

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
