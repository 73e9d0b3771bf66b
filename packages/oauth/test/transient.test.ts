// The authorization server failing for a while (5xx, connection refused) is a retryable TransportError carrying
// the OAuthError, under the reconnect schedule; a refused grant stays a final Unauthorized. Real oidc-provider,
// real SDK server, loopback HTTP; no delays in the schedules, so nothing here waits on the clock.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { OAuthClient, OAuthError, TokenStore, UrlPolicy } from "../src/index.js"
import { browserFor, connect, protectedServer, text } from "./fixtures/harness.js"

const setup = (reconnect?: Schedule.Schedule<unknown, unknown>) =>
  Effect.gen(function*() {
    const { auth, mcp } = yield* protectedServer()
    const store = yield* TokenStore.makeMemory()
    const oauth = OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
      Layer.provide(Layer.succeed(TokenStore.TokenStore, store)),
      Layer.provide(browserFor(auth))
    )
    const key = { resource: mcp.resource, issuer: auth.issuer }
    return { auth, mcp, store, key, open: connect(mcp.url, oauth, reconnect) }
  })

/** The session logs each failed initialize as a warning: expected here, so collected and asserted, not printed. */
const collectLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${(Array.isArray(message) ? message : [message]).map(String).join(" ")}`)
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const oauthCause = (error: unknown): OAuthError.OAuthError => {
  expect(error).toBeInstanceOf(McpError.TransportError)
  const cause = (error as McpError.TransportError).cause
  expect(cause).toBeInstanceOf(OAuthError.OAuthError)
  return cause as OAuthError.OAuthError
}

describe("OAuth under authorization-server faults (end to end)", () => {
  it.scopedLive("503s during initialize are retried by the reconnect schedule, then the call goes through", () =>
    Effect.gen(function*() {
      const logs = collectLogs()
      const { auth, open } = yield* setup(Schedule.recurs(5))
      // the first request's discovery (its failure only means: no stored token, go without), then two discoveries
      // after a challenge, each failing its connection attempt
      auth.failNext(3)
      const client = yield* open.pipe(Effect.provide(logs.layer))
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.outages()).toBe(3)
      expect(auth.authorizations).toHaveLength(1)
      expect(logs.lines).toEqual([
        expect.stringMatching(/^WARN .*initialize failed.*OAuth Http: .* answered HTTP 503/),
        expect.stringMatching(/^WARN .*initialize failed.*OAuth Http: .* answered HTTP 503/)
      ])
    }))

  it.scopedLive("connection refused during initialize: a TransportError (not a final Unauthorized)", () =>
    Effect.gen(function*() {
      const logs = collectLogs()
      const { auth, open } = yield* setup(Schedule.stop)
      yield* Effect.promise(() => auth.close())
      const client = yield* open.pipe(Effect.provide(logs.layer))
      const error = yield* Effect.flip(client.mcp.callTool({ name: "read" }))
      // the session gives up when the first-connect budget is spent (no connection ever worked), naming the last failure
      expect(error).toBeInstanceOf(McpError.TransportError)
      expect(error.message).toContain("OAuth Http: authorization-server metadata")
      expect(logs.lines.length).toBeGreaterThan(0)
      for (const line of logs.lines) expect(line).toMatch(/^WARN .*initialize failed.*could not be fetched/)
    }))

  it.scopedLive("a refresh answered 503 is a TransportError; the session stays and the next call refreshes", () =>
    Effect.gen(function*() {
      const { auth, key, open, store } = yield* setup()
      const client = yield* open
      yield* client.mcp.callTool({ name: "read" })
      const tokens = Option.getOrThrow(yield* store.getTokens(key))
      yield* store.setTokens(key, { ...tokens, expiresAt: Date.now() - 1000 }) // expired: it must be refreshed
      auth.failNext(Infinity)
      const error = yield* Effect.flip(client.mcp.callTool({ name: "read" }))
      expect(oauthCause(error).status).toBe(503)
      expect(Option.getOrThrow(yield* store.getTokens(key)).refreshToken).toEqual(tokens.refreshToken) // kept
      auth.failNext(0)
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants).toEqual(["authorization_code", "refresh_token"])
    }))
})
