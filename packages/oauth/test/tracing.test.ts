// Each grant at the token endpoint is a span, recorded by an in-memory tracer, against an in-process fake
// authorization server (no sockets), so TestClock drives the refresh.
import { describe, expect, it } from "@effect/vitest"
import { TestTracer } from "@mcp-effect/core"
import { HttpAuth } from "@mcp-effect/transport-http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import type * as Tracer from "effect/Tracer"
import { Authorizer, OAuthClient, TokenStore } from "../src/index.js"
import { fakeHttp, form } from "./fixtures/fakeHttp.js"

const server = "https://mcp.example.com/mcp"
const issuer = "https://as.example.com"
const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
const clientSecret = "machine-secret-never-traced"

const challenge: HttpAuth.ChallengeInfo = {
  status: 401,
  url: server,
  wwwAuthenticate: { scheme: "Bearer", params: { resource_metadata: prmUrl } },
  challenges: []
}

const makeRecorder = () => {
  const recorder = TestTracer.make()
  return { ...recorder, grants: () => recorder.spans.filter((span) => span.name.startsWith("oauth.grant ")) }
}

const authorizationServer = (token: (grantType: string | null, count: number) => unknown) => {
  let tokens = 0
  return fakeHttp((r) => {
    if (r.url === prmUrl) return { json: { resource: server, authorization_servers: [issuer] } }
    if (r.url === `${issuer}/.well-known/oauth-authorization-server`) {
      return {
        json: {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          code_challenge_methods_supported: ["S256"]
        }
      }
    }
    if (r.url === `${issuer}/register`) return { status: 201, json: { client_id: "client-1" } }
    if (r.url === `${issuer}/token`) return { json: token(form(r).get("grant_type"), ++tokens) }
  })
}

const hookOf = <E>(layer: Layer.Layer<HttpAuth.HttpAuth | OAuthClient.OAuthClient, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, HttpAuth.HttpAuth))

const endedWell = (span: Tracer.Span) => span.status._tag === "Ended" && Exit.isSuccess(span.status.exit)

describe("grant spans", () => {
  it.scoped("the code exchange and the refresh are client spans without tokens, codes or verifiers", () => {
    const recorder = makeRecorder()
    return Effect.gen(function*() {
      const http = authorizationServer((_, n) => ({
        access_token: `at-secret-${n}`,
        refresh_token: `rt-secret-${n}`,
        token_type: "Bearer",
        expires_in: 120
      }))
      const hook = yield* hookOf(
        OAuthClient.layerAuthorizationCode({ serverUrl: server, refreshSkew: "60 seconds" }).pipe(
          Layer.provide(TokenStore.layerMemory),
          Layer.provide(Layer.succeed(
            Authorizer.Authorizer,
            Authorizer.make(
              "http://127.0.0.1:4000/cb",
              (request) =>
                Effect.succeed(new URLSearchParams({ code: "code-secret", state: request.state, iss: issuer }))
            )
          )),
          Layer.provide(http.layer)
        )
      )
      expect(yield* hook.onChallenge(challenge)).toBe("retry")
      yield* TestClock.adjust("61 seconds") // inside the refresh skew
      const headers = yield* hook.headers({ url: server, method: "POST", rpcMethod: "tools/call" })
      expect(headers).toEqual({ authorization: "Bearer at-secret-2" })

      const [exchange, refresh] = recorder.grants()
      expect(recorder.grants()).toHaveLength(2)
      expect(exchange.name).toBe("oauth.grant authorization_code")
      expect(refresh.name).toBe("oauth.grant refresh_token")
      for (const span of [exchange, refresh]) {
        expect(span.kind).toBe("client")
        expect(span.attributes.get("server.address")).toBe("as.example.com")
        expect(endedWell(span)).toBe(true)
      }
      expect(exchange.attributes.get("oauth.grant_type")).toBe("authorization_code")
      const verifier = form(http.seen.find((s) => s.url === `${issuer}/token`)!).get("code_verifier")!
      const everything = JSON.stringify(recorder.spans.map((span) => [span.name, ...span.attributes]))
      for (const secret of ["at-secret", "rt-secret", "code-secret", verifier]) expect(everything).not.toContain(secret)
    }).pipe(Effect.withTracer(recorder.tracer))
  })

  it.scoped("a client-credentials grant the server refuses ends failed, with error.type and no secret", () => {
    const recorder = makeRecorder()
    return Effect.gen(function*() {
      const http = fakeHttp((r) => {
        if (r.url === prmUrl) return { json: { resource: server, authorization_servers: [issuer] } }
        if (r.url === `${issuer}/.well-known/oauth-authorization-server`) {
          return { json: { issuer, token_endpoint: `${issuer}/token` } }
        }
        if (r.url === `${issuer}/token`) return { status: 401, json: { error: "invalid_client" } }
      })
      const hook = yield* hookOf(
        OAuthClient.layerClientCredentials({
          client: { clientId: "machine", clientSecret: Redacted.make(clientSecret) }
        }).pipe(Layer.provide(TokenStore.layerMemory), Layer.provide(http.layer))
      )
      yield* Effect.flip(hook.onChallenge(challenge))
      const [grant] = recorder.grants()
      expect(grant.name).toBe("oauth.grant client_credentials")
      expect(grant.status._tag === "Ended" && Exit.isFailure(grant.status.exit)).toBe(true)
      expect(grant.attributes.get("error.type")).toBe("invalid_client")
      expect(grant.attributes.get("http.response.status_code")).toBe(401)
      expect(JSON.stringify(recorder.spans.map((span) => [span.name, ...span.attributes]))).not.toContain(clientSecret)
    }).pipe(Effect.withTracer(recorder.tracer))
  })
})
