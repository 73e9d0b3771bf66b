// Machine flows against an in-process fake: the token-endpoint authentication each method sends,
// cross-app access (token exchange at the identity provider, then the JWT-bearer grant), and the
// server-config schema that picks a flow.
import { describe, expect, it } from "@effect/vitest"
import { HttpAuth } from "@mcp-effect/transport-http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as jose from "jose"
import { Authorizer, OAuthClient, ServerAuth, TokenStore } from "../src/index.js"
import { fakeHttp, form } from "./fixtures/fakeHttp.js"

const server = "https://mcp.example.com/mcp"
const issuer = "https://as.example.com"
const idp = "https://idp.example.com"
const challenge: HttpAuth.ChallengeInfo = {
  status: 401,
  url: server,
  wwwAuthenticate: { scheme: "Bearer", params: {} },
  challenges: []
}

const authServer = (methods: ReadonlyArray<string>) =>
  fakeHttp((r) => {
    if (r.url === "https://mcp.example.com/.well-known/oauth-protected-resource/mcp") {
      return { json: { resource: server, authorization_servers: [issuer], scopes_supported: ["mcp"] } }
    }
    if (r.url === `${issuer}/.well-known/oauth-authorization-server`) {
      return { json: { issuer, token_endpoint: `${issuer}/token`, token_endpoint_auth_methods_supported: methods } }
    }
    if (r.url === `${idp}/token`) {
      return {
        json: {
          access_token: "id-jag-value",
          issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
          token_type: "N_A"
        }
      }
    }
    if (r.url === `${issuer}/token`) return { json: { access_token: "at", token_type: "Bearer", expires_in: 60 } }
  })

const hookOf = (layer: Layer.Layer<HttpAuth.HttpAuth | OAuthClient.OAuthClient>) =>
  Effect.map(Layer.build(layer), (context) => context.unsafeMap.get(HttpAuth.HttpAuth.key) as HttpAuth.Service)

const run = (methods: ReadonlyArray<string>, client: OAuthClient.ClientCredentialsOptions["client"]) =>
  Effect.gen(function*() {
    const http = authServer(methods)
    const hook = yield* hookOf(
      OAuthClient.layerClientCredentials({ serverUrl: server, client }).pipe(
        Layer.provide(TokenStore.layerMemory),
        Layer.provide(http.layer)
      )
    )
    expect(yield* hook.onChallenge(challenge)).toBe("retry")
    expect(yield* hook.headers({ url: server, method: "POST" })).toEqual({ authorization: "Bearer at" })
    return http.seen.find((s) => s.url === `${issuer}/token`)!
  })

describe("client credentials: token endpoint authentication", () => {
  const secret = "s3cret:with+special chars"

  it.scoped("client_secret_basic: form-encoded id and secret (RFC 6749 §2.3.1), nothing in the body", () =>
    Effect.gen(function*() {
      const request = yield* run(["client_secret_basic"], {
        clientId: "machine-1",
        clientSecret: Redacted.make(secret)
      })
      const [id, password] = atob(request.headers["authorization"]!.slice(6)).split(":")
      expect(id).toBe("machine-1") // unreserved characters stay as they are
      expect(new URLSearchParams(`p=${password}`).get("p")).toBe(secret)
      expect(form(request).get("client_secret")).toBeNull()
      expect(form(request).get("grant_type")).toBe("client_credentials")
      expect(form(request).get("resource")).toBe(server)
      expect(form(request).get("scope")).toBe("mcp")
    }))

  it.scoped("client_secret_post when that is all the server supports", () =>
    Effect.gen(function*() {
      const request = yield* run(["client_secret_post"], { clientId: "machine-1", clientSecret: Redacted.make(secret) })
      expect(request.headers["authorization"]).toBeUndefined()
      expect(form(request).get("client_secret")).toBe(secret)
    }))

  it.scoped("private_key_jwt: an ES256 assertion for the issuer, signed with the configured key", () =>
    Effect.gen(function*() {
      const { privateKey, publicKey } = yield* Effect.promise(() =>
        jose.generateKeyPair("ES256", { extractable: true })
      )
      const pem = yield* Effect.promise(() => jose.exportPKCS8(privateKey))
      const request = yield* run(["private_key_jwt"], {
        clientId: "machine-1",
        privateKey: Redacted.make(pem),
        algorithm: "ES256"
      })
      const body = form(request)
      expect(body.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      const { payload, protectedHeader } = yield* Effect.promise(() =>
        jose.jwtVerify(body.get("client_assertion")!, publicKey, { audience: issuer })
      )
      expect(protectedHeader.alg).toBe("ES256")
      expect(payload.iss).toBe("machine-1")
      expect(payload.sub).toBe("machine-1")
      expect(typeof payload.jti).toBe("string")
    }))

  it.scoped("a key that does not fit the algorithm is a Configuration error, without the key in it", () =>
    Effect.gen(function*() {
      const { privateKey } = yield* Effect.promise(() => jose.generateKeyPair("ES256", { extractable: true }))
      const pem = yield* Effect.promise(() => jose.exportPKCS8(privateKey))
      const http = authServer(["private_key_jwt"])
      const hook = yield* hookOf(
        OAuthClient.layerClientCredentials({
          serverUrl: server,
          client: { clientId: "m", privateKey: Redacted.make(pem), algorithm: "RS256" }
        }).pipe(Layer.provide(TokenStore.layerMemory), Layer.provide(http.layer))
      )
      const error = yield* Effect.flip(hook.onChallenge(challenge))
      expect(error.message).toContain("Configuration")
      expect(error.message).not.toContain("PRIVATE KEY")
    }))
})

describe("cross-app access", () => {
  it.scoped("exchanges the ID token for an ID-JAG at the identity provider, then redeems it", () =>
    Effect.gen(function*() {
      const http = authServer(["client_secret_basic"])
      const hook = yield* hookOf(
        OAuthClient.layerCrossAppAccess({
          serverUrl: server,
          client: { clientId: "mcp-client", clientSecret: Redacted.make("as-secret") },
          identityProvider: { tokenEndpoint: `${idp}/token`, clientId: "idp-client" },
          idToken: Effect.succeed(Redacted.make("id-token-value"))
        }).pipe(Layer.provide(TokenStore.layerMemory), Layer.provide(http.layer))
      )
      expect(yield* hook.onChallenge(challenge)).toBe("retry")
      const exchange = form(http.seen.find((s) => s.url === `${idp}/token`)!)
      expect(Object.fromEntries(exchange)).toEqual({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        audience: issuer,
        resource: server,
        scope: "mcp",
        subject_token: "id-token-value",
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        client_id: "idp-client"
      })
      const redeem = http.seen.find((s) => s.url === `${issuer}/token`)!
      expect(form(redeem).get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer")
      expect(form(redeem).get("assertion")).toBe("id-jag-value")
      expect(form(redeem).get("resource")).toBe(server)
      expect(atob(redeem.headers["authorization"]!.slice(6))).toBe("mcp-client:as-secret")
    }))
})

describe("ServerAuth", () => {
  const decode = Schema.decodeUnknownSync(ServerAuth.ServerAuth)

  it("decodes every kind, secrets as Redacted", () => {
    const bearer = decode({ type: "bearer", token: "tok-123" })
    expect(String(bearer)).not.toContain("tok-123")
    expect(ServerAuth.transportAuth(bearer)).toEqual({ _tag: "Bearer", token: expect.anything() })
    const apiKey = decode({ type: "api-key", key: "k" })
    expect(ServerAuth.transportAuth(apiKey)).toMatchObject({ _tag: "ApiKey", header: "X-API-Key" })
    expect(ServerAuth.transportAuth(decode({ type: "basic", username: "u", password: "p" }))).toMatchObject({
      _tag: "Basic",
      username: "u"
    })
    expect(ServerAuth.transportAuth(decode({ type: "none" }))).toBeUndefined()
    expect(ServerAuth.transportAuth(decode({ type: "oauth2" }))).toBeUndefined()
    expect(() => decode({ type: "oauth2", grant: "client_credentials" })).toThrow(/needs a clientId/)
    expect(() => decode({ type: "magic" })).toThrow()
  })

  it("oauth2 picks client credentials when a secret or a key is configured", () => {
    const oauth2 = (input: object) => decode({ type: "oauth2", ...input }) as typeof ServerAuth.OAuth2.Type
    expect(ServerAuth.grantOf(oauth2({ clientId: "a", clientSecret: "s" }))).toBe("client_credentials")
    expect(ServerAuth.grantOf(oauth2({ clientId: "a", privateKey: "k", algorithm: "ES256" }))).toBe(
      "client_credentials"
    )
    expect(ServerAuth.grantOf(oauth2({ clientId: "a" }))).toBe("authorization_code")
    expect(ServerAuth.grantOf(oauth2({}))).toBe("authorization_code")
    expect(ServerAuth.grantOf(oauth2({ clientId: "a", clientSecret: "s", grant: "authorization_code" }))).toBe(
      "authorization_code"
    )
  })

  it.scoped("the oauth2 Layer provides the transport's auth hook; static kinds provide nothing", () =>
    Effect.gen(function*() {
      const http = authServer(["client_secret_basic"])
      const deps = Layer.mergeAll(
        TokenStore.layerMemory,
        http.layer,
        Authorizer.layer("http://127.0.0.1:1/cb", () => Effect.never)
      )
      const config = decode({ type: "oauth2", clientId: "m", clientSecret: "s", scopes: ["mcp"] })
      const context = yield* Layer.build(ServerAuth.layer(config, { serverUrl: server }).pipe(Layer.provide(deps)))
      const hook = context.unsafeMap.get(HttpAuth.HttpAuth.key) as HttpAuth.Service
      expect(yield* hook.onChallenge(challenge)).toBe("retry")
      const staticContext = yield* Layer.build(
        ServerAuth.layer(decode({ type: "bearer", token: "t" })).pipe(Layer.provide(deps))
      )
      expect(staticContext.unsafeMap.has(HttpAuth.HttpAuth.key)).toBe(false)
    }))
})
