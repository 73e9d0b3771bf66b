// Client credentials end to end against oidc-provider: client_secret_basic, client_secret_post and
// private_key_jwt (RFC 7523) clients, each registered at the server for exactly that method.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import { OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import { connect, protectedServer, text } from "./fixtures/harness.js"

const secret = "machine-secret-never-shown-0123456789"

const keys = Effect.promise(async () => {
  const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true })
  return {
    pem: await jose.exportPKCS8(privateKey),
    jwk: { ...(await jose.exportJWK(publicKey)), kid: "machine-key", alg: "ES256", use: "sig" }
  }
})

const machines = (jwk: jose.JWK) => [
  { client_id: "machine-basic", client_secret: secret, token_endpoint_auth_method: "client_secret_basic" as const },
  { client_id: "machine-post", client_secret: secret, token_endpoint_auth_method: "client_secret_post" as const },
  { client_id: "machine-jwt", token_endpoint_auth_method: "private_key_jwt" as const, jwks: { keys: [jwk] } }
]

const credentials = (client: OAuthClient.ClientCredentialsOptions["client"]) =>
  OAuthClient.layerClientCredentials({ client, urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
    Layer.provide(TokenStore.layerMemory)
  )

describe("client credentials with oidc-provider", () => {
  const cases: ReadonlyArray<{
    readonly name: string
    readonly client: (pem: string) => OAuthClient.ClientCredentialsOptions["client"]
  }> = [
    { name: "client_secret_basic", client: () => ({ clientId: "machine-basic", clientSecret: Redacted.make(secret) }) },
    {
      name: "client_secret_post",
      client: () => ({
        clientId: "machine-post",
        clientSecret: Redacted.make(secret),
        tokenEndpointAuthMethod: "client_secret_post"
      })
    },
    {
      name: "private_key_jwt",
      client: (pem) => ({
        clientId: "machine-jwt",
        privateKey: Redacted.make(pem),
        algorithm: "ES256",
        keyId: "machine-key"
      })
    }
  ]
  for (const c of cases) {
    it.scopedLive(`${c.name}: a token for the resource, no person involved`, () =>
      Effect.gen(function*() {
        const { jwk, pem } = yield* keys
        const { auth, mcp } = yield* protectedServer({ machines: machines(jwk) })
        const client = yield* connect(mcp.url, credentials(c.client(pem)))
        expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
        expect(auth.grants).toEqual(["client_credentials"])
        expect(auth.registrations()).toBe(0)
        expect(auth.authorizations).toHaveLength(0)
      }))
  }

  it.scopedLive("a wrong secret is Unauthorized without the secret in the error", () =>
    Effect.gen(function*() {
      const { jwk } = yield* keys
      const { mcp } = yield* protectedServer({ machines: machines(jwk) })
      const wrong = "wrong-secret-value-never-shown"
      const client = yield* connect(
        mcp.url,
        credentials({ clientId: "machine-basic", clientSecret: Redacted.make(wrong) })
      )
      const error = yield* Effect.flip(client.mcp.listTools)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error.message).toContain("invalid_client")
      expect(JSON.stringify(error)).not.toContain(wrong)
      expect(String(error)).not.toContain(wrong)
    }))

  it.scopedLive("a step-up asks the server for the larger scope set", () =>
    Effect.gen(function*() {
      const { jwk } = yield* keys
      const { auth, mcp } = yield* protectedServer({ machines: machines(jwk) })
      const client = yield* connect(
        mcp.url,
        credentials({ clientId: "machine-basic", clientSecret: Redacted.make(secret) })
      )
      expect(text(yield* client.mcp.callTool({ name: "write" }))).toBe("write ok")
      expect(auth.grants).toEqual(["client_credentials", "client_credentials"])
    }))
})
