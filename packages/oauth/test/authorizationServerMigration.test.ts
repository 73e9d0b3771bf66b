// SEP-2352: the MCP server's protected-resource metadata moves from one oidc-provider to another while the
// client is connected. Client credentials belong to the authorization server that issued them.
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { OAuthClient, TokenStore, UrlPolicy } from "../src/index.js"
import type { AuthServerOptions } from "./fixtures/authServer.js"
import { startAuthServer } from "./fixtures/authServer.js"
import { browserFor, connect, resource, text } from "./fixtures/harness.js"
import { startMcpFixture } from "./fixtures/mcpServer.js"

const redirectUri = "http://127.0.0.1:8976/callback"

/** Two authorization servers and the MCP server; `migrate` points its metadata (and introspection) at the second. */
const migratingServer = (options: Omit<AuthServerOptions, "resource"> = {}) =>
  Effect.gen(function*() {
    let mcpResource = ""
    const first = yield* resource(() => startAuthServer({ ...options, resource: () => mcpResource }))
    const second = yield* resource(() => startAuthServer({ ...options, resource: () => mcpResource }))
    let current = first
    const mcp = yield* resource(() =>
      startMcpFixture({ issuer: () => current.issuer, introspection: first.introspection })
    )
    mcpResource = mcp.resource
    return { first, second, mcp, migrate: () => void (current = second) }
  })

describe("authorization-server migration (SEP-2352)", () => {
  it.scopedLive("the resource moves: the client registers at the new server and never sends it the old client id", () =>
    Effect.gen(function*() {
      const { first, mcp, migrate, second } = yield* migratingServer()
      const store = yield* TokenStore.makeMemory()
      // one person, one browser: it follows whichever authorization server the client sends it to
      const browser = browserFor(first, redirectUri)
      const client = yield* connect(
        mcp.url,
        OAuthClient.layerAuthorizationCode({ urlPolicy: UrlPolicy.loopbackDevelopment }).pipe(
          Layer.provide(Layer.succeed(TokenStore.TokenStore, store)),
          Layer.provide(browser)
        )
      )
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")
      const firstClientId = Option.getOrThrow(yield* store.getClient(first.issuer)).clientId

      migrate()
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")

      expect(second.registrations()).toBe(1)
      const secondClientId = Option.getOrThrow(yield* store.getClient(second.issuer)).clientId
      expect(secondClientId).not.toBe(firstClientId)
      expect(second.authorizations.map((a) => a.get("client_id"))).toEqual([secondClientId])
      expect(second.grants).toEqual(["authorization_code"])
      // the old server's registration stays its own, unchanged
      expect(Option.getOrThrow(yield* store.getClient(first.issuer)).clientId).toBe(firstClientId)
      expect(Option.isSome(yield* store.getTokens({ resource: mcp.resource, issuer: second.issuer }))).toBe(true)
    }))

  /** A preregistered app that works against the first server, then calls once more after the resource moved. */
  const callAfterMove = (options: { readonly pinned: boolean }) =>
    Effect.gen(function*() {
      // both servers know the client id, so only the client can keep it from going to the second one
      const publicClients = [{ client_id: "preregistered-app", redirect_uris: [redirectUri] }]
      const { first, mcp, migrate, second } = yield* migratingServer({ publicClients })
      const client = yield* connect(
        mcp.url,
        OAuthClient.layerAuthorizationCode({
          urlPolicy: UrlPolicy.loopbackDevelopment,
          ...(options.pinned ? { authorizationServer: first.issuer } : {}),
          client: { clientId: "preregistered-app" }
        }).pipe(Layer.provide(TokenStore.layerMemory), Layer.provide(browserFor(first, redirectUri)))
      )
      expect(text(yield* client.mcp.callTool({ name: "read" }))).toBe("read ok")

      migrate()
      const error = yield* Effect.flip(client.mcp.callTool({ name: "read" }))
      expect(error).toBeInstanceOf(McpError.Unauthorized)
      return { error, first, second }
    })

  it.scopedLive("a configured client id is not taken to the new server: AuthorizationServerChanged", () =>
    Effect.gen(function*() {
      const { error, second } = yield* callAfterMove({ pinned: false })
      expect(error.message).toMatch(
        /^OAuth AuthorizationServerChanged: .*registered at http:\/\/127\.0\.0\.1:\d+ only$/
      )
      expect((error as McpError.Unauthorized).reauthorize).toBe(false)
      expect(second.authorizations).toHaveLength(0)
      expect(second.grants).toHaveLength(0)
    }))

  it.scopedLive("naming the authorization server pins it: a resource that moves elsewhere is refused", () =>
    Effect.gen(function*() {
      const { error, first, second } = yield* callAfterMove({ pinned: true })
      expect(error.message).toBe(`OAuth Discovery: protected-resource metadata does not list ${first.issuer}`)
      expect(second.authorizations).toHaveLength(0)
    }))
})
