// <McpApp> over a registry of in-memory servers: the iframe it renders (sandbox, policy, document) and a
// changed UI that waits for approval.
import { McpApps, type McpSchema, McpTransport, TestServer } from "@mcp-effect/core"
import { AppHost, ServerRegistry, TransportFactory } from "@mcp-effect/hub"
import { act, cleanup, render, screen, waitFor } from "@testing-library/react"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { McpApp, RuntimeProvider } from "../src/index.js"

afterEach(cleanup)

const uri = "ui://clock/app.html"
const tool: McpSchema.Tool = { name: "get-time", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: uri } } }
let html = "<!doctype html><p>clock v1</p>"

const server = () =>
  TestServer.layer({
    capabilities: { tools: {}, resources: {} },
    handlers: {
      "tools/list": () => Effect.succeed({ tools: [tool] }),
      "resources/read": () =>
        Effect.sync(() => ({
          contents: [{
            uri,
            mimeType: McpApps.mimeType,
            text: html,
            _meta: { ui: { csp: { connectDomains: ["https://api.example.com"] }, permissions: { clipboardWrite: {} } } }
          }]
        }))
    }
  })

const transports = Layer.succeed(TransportFactory.TransportFactory, {
  make: () =>
    Effect.map(Layer.build(server()), (context) => ({
      context: Context.pick(McpTransport.McpTransport)(context),
      sessionId: Effect.succeed(undefined)
    }))
})

const layer = AppHost.layer({ pinning: "quarantine" }).pipe(
  Layer.provideMerge(ServerRegistry.layer({
    servers: [{
      name: "clock",
      transport: { _tag: "Http", url: "http://127.0.0.1:1/clock", headers: {} },
      disabled: false,
      trusted: false
    }]
  })),
  Layer.provide(transports)
)

describe("McpApp", () => {
  it("renders the UI sandboxed, under the policy its resource declares; a changed UI waits for approval", async () => {
    html = "<!doctype html><p>clock v1</p>"
    const view = (round: number) => (
      <RuntimeProvider.Provider layer={layer}>
        <McpApp.McpApp key={round} server="clock" tool={tool} />
      </RuntimeProvider.Provider>
    )
    const { container, rerender, unmount } = render(view(1))
    const frame = await waitFor(() => {
      const found = container.querySelector("iframe")
      if (found === null) throw new Error("no iframe yet")
      return found
    })
    const policy = McpApps.contentSecurityPolicy({
      connectDomains: ["https://api.example.com"],
      resourceDomains: [],
      frameDomains: [],
      baseUriDomains: []
    })
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts")
    expect(frame.getAttribute("csp")).toBe(policy)
    expect(frame.getAttribute("allow")).toBe("clipboard-write")
    expect(frame.getAttribute("srcdoc")).toBe(
      `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy}"><p>clock v1</p>`
    )
    // the server now serves another UI under the same URI: nothing renders until a person approves it
    html = "<!doctype html><p>clock v2</p>"
    rerender(view(2))
    const approve = await screen.findByRole("button", { name: /approve the new ui/i })
    expect(container.querySelector("iframe")).toBeNull()
    expect(screen.getByRole("alert").textContent).toMatch(/changed since it was approved/)
    await act(async () => approve.click())
    await waitFor(() => expect(container.querySelector("iframe")?.getAttribute("srcdoc")).toContain("clock v2"))
    unmount()
  })
})
