// The headless authorizers: hand the URL out and accept the callback later; follow an immediate redirect.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import { Authorizer, UrlPolicy } from "../src/index.js"
import { fakeHttp } from "./fixtures/fakeHttp.js"

const redirectUri = "https://app.example/cb"

describe("Authorizer.makeHeadless", () => {
  it.scoped("hands out the request and completes it from the callback URL, matched by state", () =>
    Effect.gen(function*() {
      const headless = yield* Authorizer.makeHeadless(redirectUri)
      const session = yield* headless.authorizer.session
      const url = new URL("https://as.example/authorize?state=s-1")
      const waiting = yield* Effect.fork(session.authorize({ url, state: "s-1", redirectUri }))
      const request = yield* Queue.take(headless.requests)
      expect(request.url.href).toBe(url.href)
      const unknown = yield* Effect.flip(headless.complete(`${redirectUri}?code=x&state=other`))
      expect(unknown.reason).toBe("Interaction")
      yield* headless.complete(`${redirectUri}?code=abc&state=s-1`)
      expect((yield* Fiber.join(waiting)).get("code")).toBe("abc")
      expect((yield* Effect.flip(headless.complete(`${redirectUri}?code=abc&state=s-1`))).reason).toBe("Interaction")
    }))

  it("callbackParameters reads URLs, query strings and parameters", () => {
    expect(Authorizer.callbackParameters(`${redirectUri}?code=a&state=b`).get("code")).toBe("a")
    expect(Authorizer.callbackParameters("?code=a&state=b").get("state")).toBe("b")
    expect(Authorizer.callbackParameters("code=a").get("code")).toBe("a")
    expect(Authorizer.callbackParameters(new URLSearchParams("code=z")).get("code")).toBe("z")
  })
})

describe("Authorizer.layerFollowRedirect", () => {
  const run = (location: string, url = "https://as.example/authorize?x=1") =>
    Effect.gen(function*() {
      const http = fakeHttp(() => ({ status: 302, headers: { location } }))
      const context = yield* Layer.build(
        Authorizer.layerFollowRedirect({ redirectUri, policy: UrlPolicy.strict }).pipe(Layer.provide(http.layer))
      )
      const session = yield* (context.unsafeMap.get(Authorizer.Authorizer.key) as Authorizer.Service).session
      return yield* Effect.either(session.authorize({ url: new URL(url), state: "s", redirectUri }))
    })

  it.scoped("reads the callback from the Location of the immediate redirect", () =>
    Effect.gen(function*() {
      const result = yield* run(`${redirectUri}?code=c1&state=s`)
      expect(result._tag === "Right" && result.right.get("code")).toBe("c1")
    }))

  it.scoped("refuses a redirect somewhere else, and an unsafe authorization URL", () =>
    Effect.gen(function*() {
      const elsewhere = yield* run("https://evil.example/cb?code=c1&state=s")
      expect(elsewhere._tag === "Left" && elsewhere.left.message).toContain("redirected elsewhere")
      const unsafe = yield* run(`${redirectUri}?code=c1`, "http://10.0.0.1/authorize")
      expect(unsafe._tag === "Left" && unsafe.left.reason).toBe("UnsafeUrl")
    }))

  it.scoped("an unparsable Location is a typed Interaction error, not a crash", () =>
    Effect.gen(function*() {
      const result = yield* run("http://[::1")
      expect(result._tag === "Left" && result.left.reason).toBe("Interaction")
      expect(result._tag === "Left" && result.left.message).toContain("unusable Location")
    }))
})
