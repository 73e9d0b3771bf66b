/**
 * The console's Layer: `BrowserHub` (servers, approval policy and call
 * history in IndexedDB, encrypted OAuth tokens, the OAuth popup) with the
 * UI's approval and elicitation queues around it.
 */
import type { ApprovalPolicy } from "@mcp-effect/core"
import { BrowserHub } from "@mcp-effect/hub/browser"
import * as BrowserAuthorizer from "@mcp-effect/oauth/BrowserAuthorizer"
import * as BrowserTokenStore from "@mcp-effect/oauth/BrowserTokenStore"
import { Approvals, Elicitations } from "@mcp-effect/react"
import * as Layer from "effect/Layer"

export const callbackPath = "/oauth/callback"

export const hubLayer = (mode: ApprovalPolicy.Mode) =>
  BrowserHub.layer({
    clientInfo: { name: "mcp-effect-web-console", version: "0.2.0" },
    // every tool as <server>__<tool>: the same names whichever server connects first
    toolNames: "always",
    approval: { mode },
    history: { retention: 200 },
    tokens: BrowserTokenStore.layer({ name: "mcp-console-tokens" }),
    authorizer: BrowserAuthorizer.layer({ redirectUri: `${window.location.origin}${callbackPath}` })
  }).pipe(Layer.provideMerge(Layer.merge(Approvals.layer(), Elicitations.layer())))

const modeKey = "mcp-console/approval-mode"
export const modes: ReadonlyArray<ApprovalPolicy.Mode> = ["auto", "always-ask", "trusted-only"]

export const storedMode = (): ApprovalPolicy.Mode => {
  const stored = window.localStorage.getItem(modeKey)
  return modes.find((m) => m === stored) ?? "always-ask"
}
export const storeMode = (mode: ApprovalPolicy.Mode) => window.localStorage.setItem(modeKey, mode)
