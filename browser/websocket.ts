/**
 * The WebSocket scenario of the real-browser suite: the page connects to a
 * WebSocket MCP server (the official SDK's `McpServer` on `ws`, 127.0.0.1)
 * with `BrowserWebSocketTransport`, lists the tools and calls one. The
 * server's records are checked, not only what the page reports: the
 * handshake asked for subprotocol `mcp` and came from the page's origin,
 * and the messages arrived in order.
 */
import type { Page } from "playwright-core"
import { startWsServer } from "../packages/transport-websocket/test/fixtures/sdkWebSocketServer.js"
import { bundleWebSocketPage } from "./bundle.js"
import type { WebSocketOutcome } from "./page/websocket.js"

declare const websocketHarness: { readonly session: (url: string) => Promise<WebSocketOutcome> }

type Scenario = (name: string, expected: ReadonlyArray<RegExp>, body: () => Promise<void>) => Promise<void>

const expect = (condition: unknown, what: string): void => {
  if (!condition) throw new Error(what)
}

export const websocketScenarios = async (page: Page, pageOrigin: string, scenario: Scenario): Promise<void> => {
  const server = await startWsServer()
  try {
    await scenario("WebSocket: connect with subprotocol mcp, list tools, call a tool", [], async () => {
      await page.addScriptTag({ content: await bundleWebSocketPage(), type: "module" })
      await page.waitForFunction(() => (globalThis as { websocketHarness?: unknown }).websocketHarness !== undefined)
      const outcome = await page.evaluate((url) => websocketHarness.session(url), server.url)
      if (!outcome.ok) throw new Error(`session: ${outcome.tag} ${outcome.message}`)
      expect(outcome.tools.includes("echo") && outcome.tools.includes("slow"), `tools: ${outcome.tools.join(", ")}`)
      expect(outcome.echoed === "hello over a websocket", `echo answered ${outcome.echoed}`)
      expect(server.handshakes.length === 1, `${server.handshakes.length} handshakes`)
      const handshake = server.handshakes[0]!
      expect(handshake["sec-websocket-protocol"] === "mcp", `subprotocol asked: ${handshake["sec-websocket-protocol"]}`)
      expect(handshake.origin === pageOrigin, `origin: ${handshake.origin}`)
      const methods = server.received.map((m) => m.method)
      // the dual-era client probes with server/discover first; this legacy server refuses it, so initialize follows
      const expected = ["server/discover", "initialize", "notifications/initialized", "tools/list", "tools/call"]
      expect(JSON.stringify(methods) === JSON.stringify(expected), `the server received ${methods.join(", ")}`)
      // the page's scope closed the socket with a normal closure
      for (let i = 0; i < 100 && server.closeCodes.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(JSON.stringify(server.closeCodes) === "[1000]", `close codes: ${server.closeCodes.join(", ")}`)
    })
  } finally {
    await server.close()
  }
}
