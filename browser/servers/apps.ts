/**
 * The MCP Apps servers of the browser suite, each on 127.0.0.1 behind CORS
 * for the page's origin, every request recorded:
 *
 * - the official example apps from npm (`@modelcontextprotocol/server-basic-react`,
 *   `-basic-vanillajs`, `-system-monitor`): their own `createServer()`
 *   served by the SDK v2's `createMcpHandler` (both eras: this client
 *   speaks 2026-07-28 with it);
 * - `clock`, this suite's own app on the SDK v1 (`McpServer` over
 *   `StreamableHTTPServerTransport`, 2025-11-25 only): a UI whose version
 *   the runner changes, a declared `connectDomains` origin, an app-only
 *   `report` tool the UI calls with what its fetches did.
 */
import { toNodeHandler } from "@modelcontextprotocol/node"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { createMcpHandler, fromJsonSchema, McpServer as McpServerV2 } from "@modelcontextprotocol/server"
import * as http from "node:http"
import { z } from "zod"
import { listenLoopback, readJsonBody } from "../../packages/transport-http/test/fixtures/loopback.js"

export interface Recorded {
  readonly method: string
  readonly body: any
}

export interface AppServer {
  readonly url: string
  readonly requests: Array<Recorded>
  /** The tools/call requests received, by tool name. */
  readonly calls: () => Array<string>
  readonly close: () => Promise<void>
}

const mimeType = "text/html;profile=mcp-app"

const serve = async (
  pageOrigin: string,
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => Promise<void>
): Promise<AppServer> => {
  const requests: Array<Recorded> = []
  const server = http.createServer(async (req, res) => {
    // the page, and an app's sandboxed frame (an opaque origin: "null") where its CSP lets it reach this server
    const origin = req.headers.origin
    res.setHeader("access-control-allow-origin", origin === "null" ? "null" : pageOrigin)
    res.setHeader("access-control-expose-headers", "mcp-session-id, mcp-protocol-version")
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-methods": "GET, POST, DELETE",
        "access-control-allow-headers": String(req.headers["access-control-request-headers"] ?? "content-type")
      })
      return void res.end()
    }
    const body = req.method === "POST" ? await readJsonBody(req) : undefined
    requests.push({ method: req.method ?? "", body })
    await handle(req, res, body)
  })
  const listening = await listenLoopback(server)
  return {
    url: `http://127.0.0.1:${listening.port}/mcp`,
    requests,
    calls: () => requests.filter((r) => r.body?.method === "tools/call").map((r) => String(r.body.params?.name)),
    close: listening.close
  }
}

/** A 2026-07-28-only server (SDK v2, `createMcpHandler`). */
const serveModern = async (pageOrigin: string, build: () => unknown): Promise<AppServer> => {
  const handler = createMcpHandler(() => build() as never, { legacy: "reject" })
  const node = toNodeHandler(handler)
  const served = await serve(pageOrigin, (req, res, body) => node(req as never, res as never, body))
  return { ...served, close: async () => (await handler.close(), await served.close()) }
}

/**
 * An official example app (its package's `createServer()`), served
 * stateless in the 2025-11-25 era: the SDK 2.0 server it bundles does not
 * plug into the newer SDK's 2026-07-28 serving, so the era probe
 * (`server/discover`) is refused as a 2025 server refuses it (HTTP 400)
 * and the client falls back to `initialize`.
 */
export const startOfficialApp = async (pkg: string, pageOrigin: string): Promise<AppServer> => {
  const { createServer } = await import(pkg) as { createServer: () => unknown }
  const handler = createMcpHandler(() => createServer() as never, {
    onerror: (error) => console.error("app server:", error)
  })
  const node = toNodeHandler(handler)
  const served = await serve(pageOrigin, async (req, res, body) => {
    const request = body as { id?: unknown; method?: unknown } | undefined
    if (request?.method === "server/discover") {
      return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({
        jsonrpc: "2.0",
        id: request.id ?? null,
        error: { code: -32601, message: "Method not found" }
      }))
    }
    await node(req as never, res as never, body)
  })
  return { ...served, close: async () => (await handler.close(), await served.close()) }
}

export interface ClockApp extends AppServer {
  /** Serves another UI from now on (the same URI). */
  readonly setVersion: (version: number) => void
  /** What the UI reported through its app-only `report` tool. */
  readonly reports: Array<Record<string, unknown>>
}

export const clockUri = "ui://clock/app.html"

const clockHtml = (version: number, declared: string, undeclared: string) =>
  `<!doctype html>
<html><head><meta charset="utf-8"></head><body>
<h1 id="version">clock v${version}</h1><button id="now">What time is it?</button><button id="leave">Leave</button><p id="time"></p>
<script>
let next = 1
const pending = new Map()
const send = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*")
const request = (method, params) => new Promise((resolve, reject) => {
  const id = next++
  pending.set(id, { resolve, reject })
  send({ id, method, params })
})
window.addEventListener("message", (event) => {
  const m = event.data
  if (m && m.id !== undefined && pending.has(m.id)) {
    const p = pending.get(m.id); pending.delete(m.id)
    return m.error ? p.reject(m.error) : p.resolve(m.result)
  }
  if (m && m.method === "ui/notifications/tool-result") document.getElementById("time").textContent = m.params.content[0].text
  if (m && m.method === "ui/resource-teardown") send({ id: m.id, result: {} })
})
const probe = (url) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then(() => "reached", () => "blocked")
;(async () => {
  await request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "clock", version: "${version}" }, appCapabilities: {} })
  send({ method: "ui/notifications/initialized" })
  send({ method: "ui/notifications/size-changed", params: { height: 240 } })
  const [d, u] = await Promise.all([probe(${JSON.stringify(declared)}), probe(${JSON.stringify(undeclared)})])
  await request("tools/call", { name: "report", arguments: { declared: d, undeclared: u } }).catch(() => undefined)
})()
// a UI that navigates its frame away: the document there tries to call a tool through the host
const intruder = "<script>parent.postMessage({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'get-time', arguments: {} } }, '*')<" + "/script>"
document.getElementById("leave").addEventListener("click", () => { location.href = "data:text/html," + encodeURIComponent(intruder) })
document.getElementById("now").addEventListener("click", () =>
  request("tools/call", { name: "get-time", arguments: {} }).then(
    (r) => document.getElementById("time").textContent = r.content[0].text,
    (e) => document.getElementById("time").textContent = "refused: " + e.message))
</script></body></html>`

/**
 * This suite's own app server: on the SDK v1 (protocol 2025-11-25, stateless)
 * or on the SDK v2 serving 2026-07-28 only (`legacy: "reject"`).
 */
export const startClockApp = async (
  pageOrigin: string,
  undeclared: string,
  era: "2025-11-25" | "2026-07-28"
): Promise<ClockApp> => {
  let version = 1
  const reports: Array<Record<string, unknown>> = []
  let url = ""
  const build = () => {
    const server = new McpServer({ name: "clock-app", version: "1.0.0" })
    server.registerTool("get-time", {
      description: "The time, with a clock UI",
      inputSchema: {},
      _meta: { ui: { resourceUri: clockUri } }
    }, async () => ({ content: [{ type: "text", text: "12:00" }] }))
    server.registerTool("report", {
      description: "What the UI's fetches did (for its app only)",
      inputSchema: { declared: z.string(), undeclared: z.string() },
      _meta: { ui: { resourceUri: clockUri, visibility: ["app"] } }
    }, async (args) => (reports.push(args), { content: [{ type: "text", text: "noted" }] }))
    server.registerResource("clock-ui", clockUri, { mimeType }, async () => ({
      contents: [{
        uri: clockUri,
        mimeType,
        text: clockHtml(version, url, undeclared),
        // the UI may reach its own server (declared) and nothing else
        _meta: { ui: { csp: { connectDomains: [new URL(url).origin] }, prefersBorder: true } }
      }]
    }))
    return server
  }
  const served = era === "2026-07-28" ?
    await serveModern(pageOrigin, () => buildModern()) :
    await serve(pageOrigin, async (req, res, body) => {
      // stateless: a server and a transport per request
      const transport = new StreamableHTTPServerTransport({})
      const server = build()
      res.on("close", () => void transport.close().then(() => server.close()))
      await server.connect(transport)
      await transport.handleRequest(req, res, body)
    })
  url = served.url
  return { ...served, reports, setVersion: (next) => void (version = next) }

  function buildModern() {
    const server = new McpServerV2({ name: "clock-app-2026", version: "1.0.0" }, {
      capabilities: { tools: {}, resources: {} }
    })
    server.registerTool("get-time", {
      description: "The time, with a clock UI",
      inputSchema: fromJsonSchema({ type: "object", properties: {} } as never),
      _meta: { ui: { resourceUri: clockUri } }
    }, (async () => ({ content: [{ type: "text", text: "12:00" }] })) as never)
    server.registerTool(
      "report",
      {
        description: "What the UI's fetches did (for its app only)",
        inputSchema: fromJsonSchema(
          { type: "object", properties: { declared: { type: "string" }, undeclared: { type: "string" } } } as never
        ),
        _meta: { ui: { resourceUri: clockUri, visibility: ["app"] } }
      },
      (async (
        args: Record<string, unknown>
      ) => (reports.push(args), { content: [{ type: "text", text: "noted" }] })) as never
    )
    server.registerResource(
      "clock-ui",
      clockUri,
      { mimeType },
      (async () => ({
        contents: [{
          uri: clockUri,
          mimeType,
          text: clockHtml(version, url, undeclared),
          _meta: { ui: { csp: { connectDomains: [new URL(url).origin] }, prefersBorder: true } }
        }]
      })) as never
    )
    return server
  }
}
