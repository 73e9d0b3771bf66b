import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import { HttpAuth, type HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, peer, resource, resultOf } from "./fixtures/harness.js"

const secret = "s3cret-V4lue-never-shown"
const noRetry = { schedule: Schedule.stop }

/** Everything a failure could show: message, string form, JSON, pretty cause. */
const renderings = (error: unknown): Array<string> => [
  String(error),
  (error as Error).message,
  JSON.stringify(error),
  Cause.pretty(Cause.fail(error))
]

const logs: Array<string> = []
const captureLogs = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, message }) => logs.push(JSON.stringify({ message, annotations: [...annotations] })))
)

describe("static auth", () => {
  const cases: Array<{
    readonly name: string
    readonly auth?: HttpTransport.Auth
    readonly headers?: HttpTransport.Options["headers"]
    readonly header: string
    readonly value: string
  }> = [
    {
      name: "bearer",
      auth: { _tag: "Bearer", token: Redacted.make(secret) },
      header: "authorization",
      value: `Bearer ${secret}`
    },
    {
      name: "api key in a custom header",
      auth: { _tag: "ApiKey", header: "X-Custom-Key", key: Redacted.make(secret) },
      header: "x-custom-key",
      value: secret
    },
    {
      name: "basic",
      auth: { _tag: "Basic", username: "ada", password: Redacted.make(secret) },
      header: "authorization",
      value: `Basic ${Buffer.from(`ada:${secret}`).toString("base64")}`
    },
    {
      name: "extra redacted header",
      headers: { "X-Tenant": "t1", "X-Secret": Redacted.make(secret) },
      header: "x-secret",
      value: secret
    }
  ]
  for (const c of cases) {
    it.scopedLive(`${c.name}: sent on every request`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() =>
          startFaultServer({ auth: { header: c.header, value: c.value, challenge: "Bearer realm=\"mcp\"" } })
        )
        const next = yield* connections({ url: server.url, auth: c.auth, headers: c.headers })
        const client = yield* peer(yield* next)
        yield* client.initialize
        expect(resultOf(yield* client.request("ping"))).toEqual({})
        const mcp = server.requests.filter((r) => r.path === "/mcp")
        expect(mcp.length).toBeGreaterThanOrEqual(3)
        for (const r of mcp) expect(r.headers[c.header]).toBe(c.value)
        if (c.headers !== undefined) { for (const r of mcp) expect(r.headers["x-tenant"]).toBe("t1") }
      }).pipe(Effect.provide(FetchHttpClient.layer)))
  }

  it.scopedLive("secrets appear in no error and no log", () =>
    Effect.gen(function*() {
      logs.length = 0
      const server = yield* resource(() =>
        startFaultServer({
          auth: { header: "authorization", value: "Bearer other", challenge: "Bearer error=\"invalid_token\"" }
        })
      )
      const options = {
        auth: { _tag: "Bearer", token: Redacted.make(secret) } as const,
        headers: { "X-Secret": Redacted.make(`${secret}-2`) },
        reconnect: noRetry
      }
      const refused = yield* connections({ ...options, url: server.url })
      const error = yield* Effect.flip((yield* peer(yield* refused)).initialize)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      // a server that is gone: a transport error
      const gone = yield* connections({ ...options, url: "http://127.0.0.1:9/mcp?key=" + secret })
      const transportError = yield* Effect.flip((yield* peer(yield* gone)).initialize)
      expect(transportError).toBeInstanceOf(McpError.TransportError)
      for (const text of [...renderings(error), ...renderings(transportError), ...logs]) {
        expect(text).not.toContain(secret)
      }
      expect(logs.length).toBeGreaterThan(0)
    }).pipe(
      Effect.provide(Layer.merge(FetchHttpClient.layer, captureLogs)),
      Logger.withMinimumLogLevel(LogLevel.All)
    ))

  it.scopedLive("403 insufficient_scope without a hook fails with InsufficientScope", () =>
    Effect.gen(function*() {
      const server = yield* resource(() =>
        startFaultServer({
          auth: {
            header: "authorization",
            value: "Bearer big",
            status: 403,
            challenge: "Bearer error=\"insufficient_scope\", scope=\"files:read files:write\""
          }
        })
      )
      const next = yield* connections({ url: server.url, auth: { _tag: "Bearer", token: Redacted.make("small") } })
      const error = yield* Effect.flip((yield* peer(yield* next)).initialize)
      expect(error).toBeInstanceOf(McpError.InsufficientScope)
      expect((error as McpError.InsufficientScope).scope).toBe("files:read files:write")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a challenge's error_description reaches the message neutralised and capped", () =>
    Effect.gen(function*() {
      const server = yield* resource(() =>
        startFaultServer({
          auth: {
            header: "authorization",
            value: "Bearer right",
            // C1 controls (CSI, NEL) are legal bytes in a header value
            challenge: `Bearer error="invalid_token", error_description="\u009b2Jexpired\u0085all good ${
              "x".repeat(3_000)
            }"`
          }
        })
      )
      const next = yield* connections({ url: server.url, auth: { _tag: "Bearer", token: Redacted.make("wrong") } })
      const error = yield* Effect.flip((yield* peer(yield* next)).initialize)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error.message).toContain("answered HTTP 401 (2Jexpiredall good xxx")
      for (const c of ["\u009b", "\u0085"]) expect(error.message).not.toContain(c)
      expect(error.message.length).toBeLessThan(400)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("HttpAuth hook", () => {
  const challenge =
    "Bearer realm=\"mcp\", error=\"invalid_token\", scope=\"tools:call\", resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""

  const hook = (fixes: boolean) => {
    const state = { token: "stale", challenges: [] as Array<HttpAuth.ChallengeInfo>, asked: [] as Array<string> }
    const layer = Layer.succeed(HttpAuth.HttpAuth, {
      headers: (request) =>
        Effect.sync(() => {
          state.asked.push(`${request.method} ${request.rpcMethod ?? ""}`)
          return { authorization: `Bearer ${state.token}` }
        }),
      onChallenge: (info) =>
        Effect.sync(() => {
          state.challenges.push(info)
          if (fixes) state.token = "fresh"
          return "retry" as const
        })
    })
    return { state, layer }
  }

  it.scopedLive("asks for headers per request and retries once after a 401 challenge", () =>
    Effect.gen(function*() {
      const { layer, state } = hook(true)
      const server = yield* resource(() =>
        startFaultServer({ get405: true, auth: { header: "authorization", value: "Bearer fresh", challenge } })
      )
      const next = yield* connections({ url: server.url }).pipe(Effect.provide(layer))
      const client = yield* peer(yield* next)
      yield* client.initialize
      expect(resultOf(yield* client.request("tools/list")).tools).toHaveLength(1)
      expect(state.challenges).toHaveLength(1)
      const [info] = state.challenges
      expect(info!.status).toBe(401)
      expect(info!.url).toBe(server.url)
      expect(info!.wwwAuthenticate).toEqual({
        scheme: "Bearer",
        params: {
          realm: "mcp",
          error: "invalid_token",
          scope: "tools:call",
          resource_metadata: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp"
        }
      })
      expect(state.asked.slice(0, 2)).toEqual(["POST initialize", "POST initialize"])
      expect(state.asked).toContain("POST tools/list")
      const inits = server.requests.filter((r) => r.body?.method === "initialize")
      expect(inits.map((r) => r.headers.authorization)).toEqual(["Bearer stale", "Bearer fresh"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a 403 step-up after a 401 re-authorization is put to the hook too, once", () =>
    Effect.gen(function*() {
      const tokens = ["stale", "unscoped", "scoped"]
      const seen: Array<number> = []
      const layer = Layer.succeed(HttpAuth.HttpAuth, {
        headers: () => Effect.sync(() => ({ authorization: `Bearer ${tokens[seen.length]}` })),
        onChallenge: (info) => Effect.sync(() => (seen.push(info.status), "retry" as const))
      })
      const server = yield* resource(() =>
        startFaultServer({
          get405: true,
          auth: {
            header: "authorization",
            value: "Bearer scoped",
            challenge,
            insufficient: { value: "Bearer unscoped", challenge: "Bearer error=\"insufficient_scope\", scope=\"a b\"" }
          }
        })
      )
      const next = yield* connections({ url: server.url }).pipe(Effect.provide(layer))
      yield* (yield* peer(yield* next)).initialize
      expect(seen).toEqual([401, 403])
      const inits = server.requests.filter((r) => r.body?.method === "initialize")
      expect(inits.map((r) => r.headers.authorization)).toEqual(["Bearer stale", "Bearer unscoped", "Bearer scoped"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a DPoP nonce round after a 401 re-authorization is put to the hook too, with the nonce, once", () =>
    Effect.gen(function*() {
      const seen: Array<HttpAuth.ChallengeInfo> = []
      let nonce = "none"
      const layer = Layer.succeed(HttpAuth.HttpAuth, {
        headers: () =>
          Effect.sync(() => ({
            authorization: seen.length === 0 ? "DPoP stale" : "DPoP fresh",
            dpop: `proof-${nonce}`
          })),
        onChallenge: (info) =>
          Effect.sync(() => {
            seen.push(info)
            if (info.nonce !== undefined) nonce = info.nonce
            return "retry" as const
          })
      })
      const server = yield* resource(() =>
        startFaultServer({
          get405: true,
          auth: {
            header: "authorization",
            value: "DPoP fresh",
            challenge: "DPoP resource_metadata=\"http://127.0.0.1/prm\"",
            dpop: { value: "proof-n1", nonce: "n1" }
          }
        })
      )
      const next = yield* connections({ url: server.url }).pipe(Effect.provide(layer))
      yield* (yield* peer(yield* next)).initialize
      expect(seen.map((c) => [c.status, c.nonce, HttpAuth.isNonceChallenge(c)])).toEqual([
        [401, undefined, false],
        [401, "n1", true]
      ])
      const inits = server.requests.filter((r) => r.body?.method === "initialize")
      expect(inits.map((r) => r.headers.dpop)).toEqual(["proof-none", "proof-none", "proof-n1"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a second nonce challenge after the nonce retry fails with Unauthorized", () =>
    Effect.gen(function*() {
      const seen: Array<HttpAuth.ChallengeInfo> = []
      const layer = Layer.succeed(HttpAuth.HttpAuth, {
        headers: () => Effect.succeed({ authorization: "DPoP fresh", dpop: "proof-stale" }),
        onChallenge: (info) => Effect.sync(() => (seen.push(info), "retry" as const))
      })
      const server = yield* resource(() =>
        startFaultServer({
          auth: { header: "authorization", value: "DPoP fresh", challenge, dpop: { value: "proof-n1", nonce: "n1" } }
        })
      )
      const next = yield* connections({ url: server.url, reconnect: noRetry }).pipe(Effect.provide(layer))
      const error = yield* Effect.flip((yield* peer(yield* next)).initialize)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(seen).toHaveLength(1)
      expect(server.requests.filter((r) => r.body?.method === "initialize")).toHaveLength(2)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("a second challenge after the retry fails with Unauthorized", () =>
    Effect.gen(function*() {
      const { layer, state } = hook(false)
      const server = yield* resource(() =>
        startFaultServer({ auth: { header: "authorization", value: "Bearer fresh", challenge } })
      )
      const next = yield* connections({ url: server.url, reconnect: noRetry }).pipe(Effect.provide(layer))
      const error = yield* Effect.flip((yield* peer(yield* next)).initialize)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect((error as McpError.Unauthorized).reauthorize).toBe(true)
      expect(state.challenges).toHaveLength(1)
      expect(server.requests.filter((r) => r.body?.method === "initialize")).toHaveLength(2)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
