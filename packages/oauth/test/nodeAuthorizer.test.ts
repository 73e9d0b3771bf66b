// The loopback authorizer: its callback server alone, then the whole flow against oidc-provider.
import { describe, expect, it } from "@effect/vitest"
import type { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import * as NodeAuthorizer from "../src/NodeAuthorizer.js"
import { connect, protectedServer, text } from "./fixtures/harness.js"

const request = (url: string) => ({ url: new URL("https://as.example/authorize"), state: "s1", redirectUri: url })

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.text() }
  })

describe("NodeAuthorizer callback server", () => {
  it.scoped("captures the callback, echoes nothing from it, refuses a second one", () =>
    Effect.gen(function*() {
      const session = yield* NodeAuthorizer.make({ open: () => Effect.void }).session
      expect(session.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      const waiting = yield* Effect.fork(session.authorize(request(session.redirectUri)))
      const evil = encodeURIComponent("<img src=x onerror=alert(1)>")
      const first = yield* get(`${session.redirectUri}?code=${evil}&state=s1`)
      expect(first.status).toBe(200)
      expect(first.body).not.toContain("<img")
      expect(first.body).not.toContain("onerror")
      const params = yield* Fiber.join(waiting)
      expect(params.get("code")).toBe("<img src=x onerror=alert(1)>")
      const again = yield* get(`${session.redirectUri}?code=again&state=s1`)
      expect(again).toEqual({ status: 400, body: expect.stringContaining("already completed") })
    }))

  it.scoped("takes only the pending state: anything else is a 400 page and the flow goes on waiting", () =>
    Effect.gen(function*() {
      const session = yield* NodeAuthorizer.make({ open: () => Effect.void }).session
      const waiting = yield* Effect.fork(session.authorize(request(session.redirectUri)))
      const origin = new URL(session.redirectUri).origin
      const strays = [
        `${session.redirectUri}?code=forged&state=other`, // a callback of another authorization
        `${session.redirectUri}?code=forged`, // no state
        `${session.redirectUri}?error=access_denied`, // an error response without state
        `${session.redirectUri}?state=`,
        `${origin}/favicon.ico`,
        `${origin}/callback/../other?state=s1`,
        `${origin}/random?state=s1`
      ]
      for (const url of strays) {
        const answer = yield* get(url)
        expect(answer.status, url).toBe(400)
        expect(answer.body, url).not.toContain("forged")
      }
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      expect((yield* get(`${session.redirectUri}?code=real&state=s1`)).status).toBe(200)
      expect((yield* Fiber.join(waiting)).get("code")).toBe("real")
    }))

  it.scoped("gives up after the timeout with an Interaction error", () =>
    Effect.gen(function*() {
      const session = yield* NodeAuthorizer.make({ open: () => Effect.void, timeout: "2 minutes" }).session
      const waiting = yield* Effect.fork(Effect.flip(session.authorize(request(session.redirectUri))))
      yield* TestClock.adjust("2 minutes")
      const error = yield* Fiber.join(waiting)
      expect(error).toMatchObject({ reason: "Interaction", interaction: "TimedOut" })
    }))

  it.scopedLive("the server stops listening when the session ends", () =>
    Effect.gen(function*() {
      const redirectUri = yield* Effect.scoped(
        Effect.map(NodeAuthorizer.make({ open: () => Effect.void }).session, (s) => s.redirectUri)
      )
      const result = yield* Effect.either(Effect.tryPromise(() => fetch(`${redirectUri}?state=s1`)))
      expect(result._tag).toBe("Left")
    }))
})

describe("NodeAuthorizer with oidc-provider", () => {
  it.scopedLive("the browser lands on the loopback server; a later authorization reuses the registration", () =>
    Effect.gen(function*() {
      const { auth, mcp } = yield* protectedServer()
      const pages: Array<string> = []
      const open = (url: URL) =>
        Effect.promise(async () => {
          const callback = await auth.drive(url, url.searchParams.get("redirect_uri")!)
          pages.push(await (await fetch(callback)).text())
        })
      const store = yield* TokenStore.makeMemory()
      const oauth = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
        Layer.provide(Layer.succeed(TokenStore.TokenStore, store)),
        Layer.provide(NodeAuthorizer.layer({ open }))
      )
      const client = yield* connect(mcp.url, oauth)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(pages).toEqual([expect.stringContaining("Authorization complete")])

      const key = { resource: mcp.resource, issuer: auth.issuer }
      const tokens = Option.getOrThrow(yield* store.getTokens(key))
      yield* Effect.promise(() => auth.revokeGrantOf(Redacted.value(tokens.refreshToken!)))
      const error = yield* Effect.flip(client.mcp.callTool({ name: "read" }))
      expect((error as McpError.Unauthorized).reauthorize).toBe(true)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")

      const ports = auth.authorizations.map((a) => new URL(a.get("redirect_uri")!).port)
      expect(ports).toHaveLength(2)
      expect(auth.registrations()).toBe(1) // RFC 8252: any port on the loopback address
    }))
})
