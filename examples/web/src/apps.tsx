/**
 * The console's MCP Apps panel: every tool with a UI (`_meta.ui.resourceUri`)
 * of the connected servers, each with an "Open app" button that runs the tool
 * (approved and recorded like any call) and renders its app with `McpApp`:
 * sandboxed, under the CSP the resource declares, every call the app makes
 * through the hub's approval and history (marked as the app's).
 */
import { McpApps } from "@mcp-effect/core"
import type { ServerRegistry } from "@mcp-effect/hub"
import { McpApp, Registry, ToolCall } from "@mcp-effect/react"
import * as Option from "effect/Option"
import * as React from "react"
import { statusLabel } from "./status.js"

const AppRunner = ({ hubTool }: { readonly hubTool: ServerRegistry.HubTool }) => {
  const client = Registry.useServerClient(hubTool.server)
  const call = ToolCall.useToolCall(hubTool.tool.name, { client })
  const [open, setOpen] = React.useState(false)
  const dark = typeof window !== "undefined" && window.matchMedia?.("(prefers-color-scheme: dark)").matches
  return (
    <li data-testid={`app-${hubTool.name}`}>
      <div className="row">
        <strong>{hubTool.tool.title ?? hubTool.tool.name}</strong> <span className="muted">{hubTool.server}</span>
        <button
          disabled={client === undefined}
          onClick={() => {
            setOpen(true)
            call.run({})
          }}
        >
          {open ? "Run again" : "Open app"}
        </button>
        {open && <button onClick={() => setOpen(false)}>Close</button>}
      </div>
      {open && call.status !== "Completed" && call.status !== "Idle" && (
        <p className="muted" data-testid="app-status">{statusLabel(call.status)}</p>
      )}
      {open && (
        <McpApp.McpApp
          server={hubTool.server}
          tool={hubTool.tool}
          input={{}}
          result={call.result}
          theme={dark ? "dark" : "light"}
          onOpenLink={(url) => void window.open(url, "_blank", "noopener,noreferrer")}
          onRequestClose={() => setOpen(false)}
        />
      )}
    </li>
  )
}

export const AppsPanel = () => {
  const withUi = Registry.useHubTools().filter((t) => Option.isSome(McpApps.resourceUri(t.tool)))
  if (withUi.length === 0) return null
  return (
    <section className="card" aria-label="MCP Apps">
      <h2>MCP Apps</h2>
      <ul className="tools">
        {withUi.map((t) => <AppRunner key={t.name} hubTool={t} />)}
      </ul>
    </section>
  )
}
