// Workload identity federation: the JWT-bearer grant (RFC 7523) against oidc-provider with the grant
// registered (it verifies the workload JWT with the workload's public key, audience = its issuer).
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import { OAuthClient, OAuthError, TokenStore, UrlPolicy } from "../src/index.js"
import { connect, protectedServer, text } from "./fixtures/harness.js"

const workloadKeys = Effect.promise(() => jose.generateKeyPair("ES256"))

/** A workload JWT as a platform would mint it (a projected service-account token, a CI OIDC token). */
const workloadJwt = (privateKey: CryptoKey, audience: string) =>
  Effect.promise(() =>
    new jose.SignJWT({})
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("https://idp.example.com")
      .setSubject("system:serviceaccount:ci:deployer")
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey)
  )

const workload = (assertion: Effect.Effect<string>) =>
  OAuthClient.layerJwtBearer({
    client: { clientId: "workload" },
    urlPolicy: UrlPolicy.loopbackDevelopment,
    assertion: Effect.map(assertion, Redacted.make)
  }).pipe(Layer.provide(TokenStore.layerMemory))

describe("JWT-bearer grant (workload identity) with oidc-provider", () => {
  it.scopedLive("the workload's JWT is redeemed for a token for the resource", () =>
    Effect.gen(function*() {
      const { privateKey, publicKey } = yield* workloadKeys
      const { auth, mcp } = yield* protectedServer({ workloadKey: publicKey })
      let asked = 0
      const client = yield* connect(
        mcp.url,
        workload(Effect.suspend(() => {
          asked++
          return workloadJwt(privateKey, auth.issuer)
        }))
      )
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      expect(auth.grants).toEqual(["urn:ietf:params:oauth:grant-type:jwt-bearer"])
      expect(asked).toBe(1)
    }))

  it.scopedLive("a refused assertion is Unauthorized at once: one token request, no other grant", () =>
    Effect.gen(function*() {
      const { privateKey, publicKey } = yield* workloadKeys
      const { auth, mcp } = yield* protectedServer({ workloadKey: publicKey })
      const jwt = yield* workloadJwt(privateKey, "https://someone-else.example.com")
      const client = yield* connect(mcp.url, workload(Effect.succeed(jwt)))
      const error = yield* Effect.flip(client.mcp.listTools)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error.message).toContain("invalid_grant")
      expect(error.message).not.toContain(jwt)
      expect(auth.grants).toEqual([])
      expect(auth.grantErrors).toEqual(["invalid_grant"])
    }))

  it.scopedLive("the app's failure to produce a JWT is the app's OAuthError, as Unauthorized", () =>
    Effect.gen(function*() {
      const { publicKey } = yield* workloadKeys
      const { mcp } = yield* protectedServer({ workloadKey: publicKey })
      const missing = new OAuthError.OAuthError({ reason: "Configuration", message: "no workload token file" })
      const layer = OAuthClient.layerJwtBearer({
        client: { clientId: "workload" },
        urlPolicy: UrlPolicy.loopbackDevelopment,
        assertion: Effect.fail(missing)
      }).pipe(Layer.provide(TokenStore.layerMemory))
      const error = yield* Effect.flip((yield* connect(mcp.url, layer)).mcp.listTools)
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      expect(error.message).toContain("no workload token file")
    }))
})
