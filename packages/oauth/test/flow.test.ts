// The authorization-code flow behind the HttpAuth hook, against an in-process fake authorization
// server (no sockets), so TestClock drives expiry.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import { HttpAuth } from "@mcp-effect/transport-http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as oauth from "oauth4webapi"
import { Authorizer, HostResolver, OAuthClient, OAuthError, TokenStore } from "../src/index.js"
import { type Answer, fakeHttp, form, type Route, type Seen } from "./fixtures/fakeHttp.js"

const server = "https://mcp.example.com/mcp"
const issuer = "https://as.example.com"
const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

const challenge: HttpAuth.ChallengeInfo = {
  status: 401,
  url: server,
  wwwAuthenticate: { scheme: "Bearer", params: { resource_metadata: prmUrl, scope: "files:read" } },
  challenges: []
}

interface Setup {
  readonly metadata?: Record<string, unknown>
  readonly callback?: (request: Authorizer.AuthorizationRequest) => Record<string, string>
  readonly token?: (seen: Seen, count: number) => Answer
  readonly client?: OAuthClient.ClientOptions
  readonly resourceMetadata?: Record<string, unknown>
  readonly registration?: Record<string, unknown>
  /** Answers before the normal routes (faults). */
  readonly override?: Route
  readonly layers?: Layer.Layer<HostResolver.HostResolver>
}

const setup = (options: Setup = {}) =>
  Effect.gen(function*() {
    let tokens = 0
    const http = fakeHttp((r) => {
      const overridden = options.override?.(r)
      if (overridden !== undefined) return overridden
      if (r.url === prmUrl) {
        return { json: { resource: server, authorization_servers: [issuer], ...options.resourceMetadata } }
      }
      if (r.url === `${issuer}/.well-known/oauth-authorization-server`) {
        return {
          json: {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            registration_endpoint: `${issuer}/register`,
            code_challenge_methods_supported: ["S256"],
            ...options.metadata
          }
        }
      }
      if (r.url === `${issuer}/register`) {
        return { status: 201, json: { client_id: "client-1", ...options.registration } }
      }
      if (r.url === `${issuer}/token`) {
        tokens++
        return options.token?.(r, tokens) ??
          {
            json: { access_token: `at-${tokens}`, refresh_token: `rt-${tokens}`, token_type: "Bearer", expires_in: 120 }
          }
      }
    })
    const requests: Array<Authorizer.AuthorizationRequest> = []
    const authorizer = Authorizer.make("http://127.0.0.1:4000/cb", (request) => {
      requests.push(request)
      return Effect.succeed(
        new URLSearchParams(options.callback?.(request) ?? { code: "code-1", state: request.state, iss: issuer })
      )
    })
    const context = yield* Layer.build(
      OAuthClient.layerAuthorizationCode({ serverUrl: server, refreshSkew: "60 seconds", client: options.client }).pipe(
        Layer.provide(TokenStore.layerMemory),
        Layer.provide(Layer.succeed(Authorizer.Authorizer, authorizer)),
        Layer.provide(http.layer),
        Layer.provide(options.layers ?? Layer.empty)
      )
    )
    const hook = context.unsafeMap.get(HttpAuth.HttpAuth.key) as HttpAuth.Service
    const headers = hook.headers({ url: server, method: "POST", rpcMethod: "tools/call" })
    const tokenRequests = () => http.seen.filter((s) => s.url === `${issuer}/token`).map(form)
    return { hook, headers, http, requests, tokenRequests }
  })

describe("authorization code flow (fake authorization server)", () => {
  it.scoped("PKCE S256, state, resource on both requests, scope from the challenge", () =>
    Effect.gen(function*() {
      const { headers, hook, http, requests, tokenRequests } = yield* setup()
      expect(yield* headers).toEqual({}) // nothing known before the first challenge
      expect(yield* hook.onChallenge(challenge)).toBe("retry")
      expect(yield* headers).toEqual({ authorization: "Bearer at-1" })
      const url = requests[0]!.url
      expect(url.origin + url.pathname).toBe(`${issuer}/authorize`)
      expect(url.searchParams.get("resource")).toBe(server)
      expect(url.searchParams.get("scope")).toBe("files:read")
      expect(url.searchParams.get("state")).toBe(requests[0]!.state)
      expect(url.searchParams.get("client_id")).toBe("client-1")
      expect(url.searchParams.get("code_challenge_method")).toBe("S256")
      const [exchange] = tokenRequests()
      expect(exchange!.get("grant_type")).toBe("authorization_code")
      expect(exchange!.get("resource")).toBe(server)
      expect(exchange!.get("redirect_uri")).toBe("http://127.0.0.1:4000/cb")
      const verifier = exchange!.get("code_verifier")!
      expect(url.searchParams.get("code_challenge")).toBe(
        yield* Effect.promise(() => oauth.calculatePKCECodeChallenge(verifier))
      )
      const registration = JSON.parse(http.seen.find((s) => s.url.endsWith("/register"))!.body)
      expect(registration.grant_types).toEqual(["authorization_code", "refresh_token"])
      expect(registration.application_type).toBe("native")
    }))

  for (const [name, methods] of [["absent", undefined], ["plain only", ["plain"]]] as const) {
    it.scoped(`refuses to proceed when code_challenge_methods_supported is ${name}`, () =>
      Effect.gen(function*() {
        const { hook, http, requests } = yield* setup({ metadata: { code_challenge_methods_supported: methods } })
        const error = yield* Effect.flip(hook.onChallenge(challenge))
        expect(error).toBeInstanceOf(McpError.Unauthorized)
        expect(error.message).toContain("PkceUnsupported")
        expect(requests).toHaveLength(0)
        expect(http.seen.some((s) => s.url.endsWith("/register"))).toBe(false)
      }))
  }

  const issCases: ReadonlyArray<
    [string, Record<string, unknown>, (r: Authorizer.AuthorizationRequest) => Record<string, string>, boolean]
  > = [
    [
      "advertised and right",
      { authorization_response_iss_parameter_supported: true },
      (r) => ({ code: "c", state: r.state, iss: issuer }),
      true
    ],
    [
      "advertised but missing",
      { authorization_response_iss_parameter_supported: true },
      (r) => ({ code: "c", state: r.state }),
      false
    ],
    [
      "advertised and wrong",
      { authorization_response_iss_parameter_supported: true },
      (r) => ({ code: "c", state: r.state, iss: "https://evil.example" }),
      false
    ],
    ["not advertised, absent", {}, (r) => ({ code: "c", state: r.state }), true],
    ["not advertised, wrong", {}, (r) => ({ code: "c", state: r.state, iss: "https://evil.example" }), false]
  ]
  for (const [name, metadata, callback, ok] of issCases) {
    it.scoped(`RFC 9207 iss ${name}: ${ok ? "accepted" : "refused before the token request"}`, () =>
      Effect.gen(function*() {
        const { hook, tokenRequests } = yield* setup({ metadata, callback })
        const result = yield* Effect.either(hook.onChallenge(challenge))
        expect(result._tag).toBe(ok ? "Right" : "Left")
        if (!ok) expect(result._tag === "Left" && result.left.message).toContain("Authorization")
        expect(tokenRequests()).toHaveLength(ok ? 1 : 0)
      }))
  }

  // Each document from the network is decoded: a field of the wrong type is a typed OAuthError (the hook reports
  // it as Unauthorized naming the field), never a defect and never silently taken.
  const wrongTyped: ReadonlyArray<[string, Setup, string]> = [
    ["protected-resource metadata", { resourceMetadata: { authorization_servers: issuer } }, "authorization_servers"],
    ["protected-resource metadata", { resourceMetadata: { scopes_supported: [1, 2] } }, "scopes_supported.0"],
    [
      "authorization-server metadata",
      { metadata: { code_challenge_methods_supported: "S256" } },
      "code_challenge_methods_supported"
    ],
    ["authorization-server metadata", { metadata: { token_endpoint: 443 } }, "token_endpoint"],
    ["registration response", { registration: { redirect_uris: "http://127.0.0.1:4000/cb" } }, "redirect_uris"],
    ["registration response", { registration: { client_secret_expires_at: "never" } }, "client_secret_expires_at"],
    [
      "token response",
      { token: () => ({ json: { access_token: "at", token_type: "Bearer", expires_in: "soon" } }) },
      "expires_in"
    ],
    [
      "token response",
      { token: () => ({ json: { access_token: "at", token_type: "Bearer", refresh_token: 7 } }) },
      "refresh_token"
    ]
  ]
  for (const [kind, options, field] of wrongTyped) {
    it.scoped(`${kind} with a wrong-typed ${field}: a typed error naming the field`, () =>
      Effect.gen(function*() {
        const { headers, hook } = yield* setup(options)
        const error = yield* Effect.flip(hook.onChallenge(challenge))
        expect(error).toBeInstanceOf(McpError.Unauthorized)
        expect(error.message).toContain(field.split(".")[0])
        expect(yield* headers).toEqual({})
      }))
  }

  // Transient failures of the authorization server are TransportErrors (retried by the reconnect schedule) with
  // the OAuthError as cause; permanent ones stay Unauthorized.
  const transientCause = (error: unknown) => {
    expect(error).toBeInstanceOf(McpError.TransportError)
    const cause = (error as McpError.TransportError).cause as OAuthError.OAuthError
    expect(cause).toBeInstanceOf(OAuthError.OAuthError)
    return cause
  }

  it.scoped("authorization-server metadata answered 503: a TransportError, and no guess at another location", () =>
    Effect.gen(function*() {
      const asMetadata = `${issuer}/.well-known/oauth-authorization-server`
      const { hook, http } = yield* setup({ override: (r) => r.url === asMetadata ? { status: 503 } : undefined })
      const cause = transientCause(yield* Effect.flip(hook.onChallenge(challenge)))
      expect(cause).toMatchObject({ reason: "Http", status: 503 })
      expect(http.urls()).toEqual([`GET ${prmUrl}`, `GET ${asMetadata}`])
    }))

  it.scoped("a host name that does not resolve: a TransportError", () =>
    Effect.gen(function*() {
      const { hook } = yield* setup({
        layers: Layer.succeed(HostResolver.HostResolver, {
          lookup: (host) => Effect.fail(new OAuthError.OAuthError({ reason: "Http", message: `${host}: ENOTFOUND` }))
        })
      })
      expect(transientCause(yield* Effect.flip(hook.onChallenge(challenge))).message).toContain("ENOTFOUND")
    }))

  const refreshAnswers: ReadonlyArray<[string, Answer, "TransportError" | "Unauthorized"]> = [
    ["503 with a body that is no OAuth error", { status: 503, json: "down for maintenance" }, "TransportError"],
    ["503 temporarily_unavailable", { status: 503, json: { error: "temporarily_unavailable" } }, "TransportError"],
    ["500 server_error", { status: 500, json: { error: "server_error" } }, "TransportError"],
    ["429", { status: 429, json: { error: "slow_down" } }, "TransportError"],
    ["401 invalid_client", { status: 401, json: { error: "invalid_client" } }, "Unauthorized"],
    ["400 invalid_request", { status: 400, json: { error: "invalid_request" } }, "Unauthorized"]
  ]
  for (const [name, answer, tag] of refreshAnswers) {
    it.scoped(`a refresh answered ${name}: ${tag}`, () =>
      Effect.gen(function*() {
        const { headers, hook } = yield* setup({
          token: (r, n) =>
            form(r).get("grant_type") === "refresh_token"
              ? answer
              : { json: { access_token: `at-${n}`, refresh_token: "rt", token_type: "Bearer", expires_in: 120 } }
        })
        yield* hook.onChallenge(challenge)
        yield* TestClock.adjust("121 seconds") // expired: the token cannot be sent without a refresh
        const error = yield* Effect.flip(headers)
        expect(error._tag).toBe(tag)
        if (tag === "TransportError") {
          expect(transientCause(error)).toMatchObject({ reason: "Token", status: answer.status })
        }
      }))
  }

  it.scoped("a callback with another state, or an error, is refused", () =>
    Effect.gen(function*() {
      const wrongState = yield* setup({ callback: () => ({ code: "c", state: "forged", iss: issuer }) })
      expect((yield* Effect.flip(wrongState.hook.onChallenge(challenge))).message).toContain("state")
      expect(wrongState.tokenRequests()).toHaveLength(0)
      const denied = yield* setup({ callback: (r) => ({ error: "access_denied", state: r.state, iss: issuer }) })
      expect((yield* Effect.flip(denied.hook.onChallenge(challenge))).message).toContain("access_denied")
    }))

  it.scoped("refreshes proactively inside the skew, not before (TestClock)", () =>
    Effect.gen(function*() {
      const { headers, hook, tokenRequests } = yield* setup()
      yield* hook.onChallenge(challenge) // expires_in 120 s, skew 60 s
      yield* TestClock.adjust("59 seconds")
      expect(yield* headers).toEqual({ authorization: "Bearer at-1" })
      yield* TestClock.adjust("2 seconds")
      expect(yield* headers).toEqual({ authorization: "Bearer at-2" })
      const refresh = tokenRequests()[1]!
      expect(refresh.get("grant_type")).toBe("refresh_token")
      expect(refresh.get("refresh_token")).toBe("rt-1")
      expect(refresh.get("resource")).toBe(server)
      expect(yield* headers).toEqual({ authorization: "Bearer at-2" })
      expect(tokenRequests()).toHaveLength(2)
    }))

  it.scoped("a refresh answered invalid_grant: Unauthorized with reauthorize, tokens gone", () =>
    Effect.gen(function*() {
      const { headers, hook } = yield* setup({
        token: (r, n) =>
          form(r).get("grant_type") === "refresh_token"
            ? { status: 400, json: { error: "invalid_grant", error_description: "revoked" } }
            : { json: { access_token: `at-${n}`, refresh_token: "rt", token_type: "Bearer", expires_in: 120 } }
      })
      yield* hook.onChallenge(challenge)
      yield* TestClock.adjust("100 seconds")
      const error = yield* Effect.flip(headers)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error._tag === "Unauthorized" && error.reauthorize).toBe(true)
      expect(error.message).toContain("invalid_grant")
      expect(yield* headers).toEqual({}) // the next request starts over with a challenge
    }))

  it.scoped("an authorization server's error text reaches the message neutralised and capped", () =>
    Effect.gen(function*() {
      const description = "\u001b[2Jrevoked\r\nall good: \u202eevil " + "x".repeat(5_000)
      const { headers, hook } = yield* setup({
        token: (r, n) =>
          form(r).get("grant_type") === "refresh_token"
            ? { status: 400, json: { error: "invalid_grant", error_description: description } }
            : { json: { access_token: `at-${n}`, refresh_token: "rt", token_type: "Bearer", expires_in: 120 } }
      })
      yield* hook.onChallenge(challenge)
      yield* TestClock.adjust("100 seconds")
      const error = yield* Effect.flip(headers)
      expect(error.message).toContain("invalid_grant: revoked all good: evil xxx")
      for (const c of ["\u001b", "\r", "\n", "\u202e"]) expect(error.message).not.toContain(c)
      expect(error.message.length).toBeLessThan(600)
    }))

  it.scoped("an expired token without a refresh token is not sent; the next challenge authorizes again", () =>
    Effect.gen(function*() {
      const { headers, hook, requests } = yield* setup({
        token: (_, n) => ({ json: { access_token: `at-${n}`, token_type: "Bearer", expires_in: 30 } })
      })
      yield* hook.onChallenge(challenge)
      expect(yield* headers).toEqual({ authorization: "Bearer at-1" })
      yield* TestClock.adjust("31 seconds")
      expect(yield* headers).toEqual({})
      expect(yield* hook.onChallenge(challenge)).toBe("retry")
      expect(yield* headers).toEqual({ authorization: "Bearer at-2" })
      expect(requests).toHaveLength(2)
    }))

  it.scoped("403 without insufficient_scope is left to the transport", () =>
    Effect.gen(function*() {
      const { hook } = yield* setup()
      expect(yield* hook.onChallenge({ ...challenge, status: 403, wwwAuthenticate: { scheme: "Bearer", params: {} } }))
        .toBe(
          "fail"
        )
    }))

  const cimd = "https://app.example/client-metadata.json"
  const identityCases: ReadonlyArray<[string, Setup, string, boolean]> = [
    [
      "pre-registered beats everything",
      {
        client: { clientId: "pre", metadataDocumentUrl: cimd },
        metadata: { client_id_metadata_document_supported: true }
      },
      "pre",
      false
    ],
    [
      "Client ID Metadata Document when the server supports it",
      { client: { metadataDocumentUrl: cimd }, metadata: { client_id_metadata_document_supported: true } },
      cimd,
      false
    ],
    ["dynamic registration when it does not", { client: { metadataDocumentUrl: cimd } }, "client-1", true],
    [
      "dynamic registration without a document URL",
      { metadata: { client_id_metadata_document_supported: true } },
      "client-1",
      true
    ]
  ]
  for (const [name, options, clientId, registers] of identityCases) {
    it.scoped(`client identity: ${name}`, () =>
      Effect.gen(function*() {
        const { hook, http, requests, tokenRequests } = yield* setup(options)
        yield* hook.onChallenge(challenge)
        expect(requests[0]!.url.searchParams.get("client_id")).toBe(clientId)
        expect(tokenRequests()[0]!.get("client_id")).toBe(clientId)
        expect(http.seen.some((s) => s.url.endsWith("/register"))).toBe(registers)
      }))
  }

  it.scoped("a registration is stored per issuer and reused by the next authorization", () =>
    Effect.gen(function*() {
      const { hook, http, requests } = yield* setup({
        token: (_, n) => ({ json: { access_token: `at-${n}`, token_type: "Bearer", expires_in: 30 } })
      })
      yield* hook.onChallenge(challenge)
      yield* TestClock.adjust("31 seconds")
      yield* hook.onChallenge(challenge)
      expect(requests).toHaveLength(2)
      expect(http.seen.filter((s) => s.url.endsWith("/register"))).toHaveLength(1)
    }))
})
