/**
 * The console's Layer: `BrowserHub` (servers, approval policy and call
 * history in IndexedDB, encrypted OAuth tokens, the OAuth popup) with the
 * UI's approval and elicitation queues around it; and the Layer of a
 * connection test (a registry of one server, kept in memory only).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { type ApprovalPolicy, ClientExtensions, McpApps } from "@mcp-effect/core"
import * as SessionStore from "@mcp-effect/core/SessionStore"
import { AppHost, ServerRegistry } from "@mcp-effect/hub"
import type { ServerConfig } from "@mcp-effect/hub"
import { BrowserHub, BrowserTransportFactory, IndexedDbKeyValueStore } from "@mcp-effect/hub/browser"
import * as BrowserAuthorizer from "@mcp-effect/oauth/BrowserAuthorizer"
import * as BrowserTokenStore from "@mcp-effect/oauth/BrowserTokenStore"
import * as Discovery from "@mcp-effect/oauth/Discovery"
import * as TokenStore from "@mcp-effect/oauth/TokenStore"
import * as UrlPolicy from "@mcp-effect/oauth/UrlPolicy"
import { Approvals, Elicitations } from "@mcp-effect/react"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const callbackPath = "/oauth/callback"

const clientInfo = { name: "mcp-effect-web-console", version: "0.2.0" }

// one store for the hub, the connection test and "remove a server's tokens"
// (a Layer object used twice in one build is built once)
const tokens = BrowserTokenStore.layer({ name: "mcp-console-tokens" })
// the popup sign-in of each runtime; its SignIns are in the runtime too (the sign-in notice's Cancel and Reopen)
const authorizer = () => BrowserAuthorizer.layer({ redirectUri: `${window.location.origin}${callbackPath}` })

/**
 * The key that seals stored session ids: AES-GCM, non-extractable, kept in
 * IndexedDB by structured clone (script on the page can use it, not read it).
 */
const sessionKey = (): Promise<CryptoKey> =>
  new Promise((resolve, reject) => {
    const open = indexedDB.open("mcp-console-keys", 1)
    open.onupgradeneeded = () => open.result.createObjectStore("keys")
    open.onerror = () => reject(open.error)
    open.onsuccess = () => {
      const db = open.result
      const read = db.transaction("keys").objectStore("keys").get("sessions")
      read.onerror = () => reject(read.error)
      read.onsuccess = () => {
        if (read.result instanceof CryptoKey) {
          db.close()
          return resolve(read.result)
        }
        crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]).then((key) => {
          const write = db.transaction("keys", "readwrite").objectStore("keys").put(key, "sessions")
          write.onsuccess = () => {
            db.close()
            resolve(key)
          }
          write.onerror = () => reject(write.error)
        }, reject)
      }
    }
  })

/**
 * Sessions (and what each server spoke) kept across reloads: a reload resumes
 * the sessions it left instead of piling up new ones. Session ids are sealed.
 */
const sessions = Layer.unwrapEffect(
  Effect.map(Effect.promise(sessionKey), (key) => SessionStore.layer({ key }))
).pipe(Layer.provide(IndexedDbKeyValueStore.layer({ database: "mcp-console-sessions" })))

export const hubLayer = (mode: ApprovalPolicy.Mode) => {
  const signIn = authorizer()
  // MCP Apps: the UIs' calls go through the hub (`AppHost`), and servers see that the console renders them
  return AppHost.layer().pipe(Layer.provideMerge(BrowserHub.layer({
    clientInfo,
    // every tool as <server>__<tool>: the same names whichever server connects first
    toolNames: "always",
    approval: { mode },
    history: { retention: 200 },
    tokens,
    authorizer: signIn
  }))).pipe(
    Layer.provideMerge(Layer.mergeAll(Approvals.layer(), Elicitations.layer(), tokens, sessions, signIn)),
    Layer.provide(ClientExtensions.layer({ ...McpApps.capability }))
  )
}

/**
 * A connection test: the server in a registry of its own, in memory. Nothing
 * is saved; closing the test's runtime closes its session.
 */
export const testLayer = (config: ServerConfig.ServerConfig) =>
  ServerRegistry.layer({ servers: [config], clientInfo }).pipe(
    Layer.provide(BrowserTransportFactory.layer),
    Layer.provideMerge(Layer.merge(tokens, authorizer()))
  )

/**
 * Deletes the tokens this browser holds for a server (its authorization
 * server is discovered again); tokens are kept per OAuth client, so the
 * client id the server was configured with is part of their key.
 */
export const forgetTokens = (url: string, clientId: string | undefined) =>
  Effect.gen(function*() {
    const found = yield* Discovery.discover({ serverUrl: url, policy: UrlPolicy.loopbackDevelopment })
    const store = yield* TokenStore.TokenStore
    yield* store.deleteTokens({
      resource: found.resource,
      issuer: found.issuer,
      ...(clientId === undefined ? {} : { clientId })
    })
  }).pipe(Effect.provide(FetchHttpClient.layer))

const modeKey = "mcp-console/approval-mode"
export const modes: ReadonlyArray<ApprovalPolicy.Mode> = ["auto", "always-ask", "trusted-only"]

export const storedMode = (): ApprovalPolicy.Mode => {
  const stored = window.localStorage.getItem(modeKey)
  return modes.find((m) => m === stored) ?? "always-ask"
}
export const storeMode = (mode: ApprovalPolicy.Mode) => window.localStorage.setItem(modeKey, mode)

/** What the console remembers of the servers it added: the URL (for DELETE on reload, and tokens) and the auth. */
export interface Saved {
  readonly url: string
  readonly oauth: boolean
  /** The OAuth client id it was configured with (its tokens are kept under it). */
  readonly clientId?: string | undefined
  readonly oauthWithoutClientId?: boolean | undefined
}
const savedKey = "mcp-console/servers"
export const savedServers = (): Record<string, Saved> => {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(savedKey) ?? "{}")
    return typeof parsed === "object" && parsed !== null ? parsed as Record<string, Saved> : {}
  } catch {
    return {}
  }
}
export const saveServer = (name: string, saved: Saved | undefined) => {
  const all = savedServers()
  if (saved === undefined) delete all[name]
  else all[name] = saved
  window.localStorage.setItem(savedKey, JSON.stringify(all))
}
