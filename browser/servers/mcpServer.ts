/**
 * The MCP server the browser talks to: the official SDK's `McpServer` over
 * `StreamableHTTPServerTransport` (stateful, with a GET stream) on
 * 127.0.0.1, behind a strict CORS policy like a careful deployment has:
 * only the page's origin, only the headers MCP needs
 * (`allowedHeaders`), `mcp-session-id` and `www-authenticate` exposed, and
 * no preflight caching (every cross-origin request is preflighted, so what
 * the browser asked for is on record).
 *
 * `/mcp` is open; `/secure/mcp` needs a bearer token that the authorization
 * server's introspection calls active for this resource (401 with
 * `resource_metadata` otherwise); `/moved/mcp` is protected the same way but
 * its protected-resource metadata answers with a redirect.
 *
 * Every request is recorded (method, path, headers, JSON body), preflights
 * included.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { z } from "zod"
import { listenLoopback, readJsonBody } from "../../packages/transport-http/test/fixtures/loopback.js"

export const allowedHeaders = [
  "content-type",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  "authorization"
]

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: unknown
}

export interface McpFixture {
  readonly origin: string
  readonly requests: Array<Recorded>
  /** `tools/call` of `slow` whose signal the SDK aborted (it got `notifications/cancelled`). */
  readonly aborted: Array<string>
  /**
   * Forgets every session, as a restarted server does: their next request is
   * answered 404. Open streams stay open unless `close` (then calls in flight
   * end without an answer).
   */
  readonly expireSessions: (options?: { readonly close?: boolean }) => void
  readonly close: () => Promise<void>
}

export interface McpFixtureOptions {
  /** The origin allowed by CORS (the page's). */
  readonly pageOrigin: string
  /** The authorization server; read per request. */
  readonly issuer: () => string
  readonly introspection: { readonly clientId: string; readonly clientSecret: string }
  /** The MCP server behind each session (default: `echo`, `read` and `slow`). */
  readonly makeServer?: ((aborted: Array<string>) => { readonly connect: McpServer["connect"] }) | undefined
}

const makeServer = (aborted: Array<string>) => {
  const server = new McpServer({ name: "browser-fixture", version: "1.0.0" })
  server.registerTool("echo", { description: "echoes", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }]
  }))
  server.registerTool("read", { description: "needs a token on /secure/mcp" }, async () => ({
    content: [{ type: "text", text: "read ok" }]
  }))
  server.registerTool(
    "slow",
    { description: "reports progress every 50 ms until cancelled (at most 10 s)", inputSchema: { tag: z.string() } },
    async ({ tag }, extra) => {
      const token = extra._meta?.progressToken
      // recorded the moment the SDK aborts the call, before the page can look
      extra.signal.addEventListener("abort", () => aborted.push(tag), { once: true })
      for (let step = 1; step <= 200 && !extra.signal.aborted; step++) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step }
          })
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return { content: [{ type: "text", text: `slow ${tag} done` }] }
    }
  )
  return server
}

export const startMcpFixture = async (options: McpFixtureOptions): Promise<McpFixture> => {
  const requests: Array<Recorded> = []
  const aborted: Array<string> = []
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const expired: Array<StreamableHTTPServerTransport> = []
  let origin = ""

  const cors = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.headers.origin !== options.pageOrigin) return
    res.setHeader("access-control-allow-origin", options.pageOrigin)
    res.setHeader("vary", "origin")
    res.setHeader("access-control-expose-headers", "mcp-session-id, www-authenticate")
  }

  const introspect = async (token: string, resource: string): Promise<boolean> => {
    const response = await fetch(`${options.issuer()}/token/introspection`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${options.introspection.clientId}:${options.introspection.clientSecret}`)}`
      },
      body: new URLSearchParams({ token })
    })
    const result = await response.json() as { active?: boolean; aud?: string | Array<string> }
    const audience = Array.isArray(result.aud) ? result.aud : [result.aud]
    return result.active === true && audience.includes(resource)
  }

  const metadata = (path: string) => ({
    resource: `${origin}${path}`,
    authorization_servers: [options.issuer()],
    scopes_supported: ["mcp:read"]
  })

  const handleMcp = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => {
    const sessionId = req.headers["mcp-session-id"]
    if (typeof sessionId === "string") {
      const transport = transports.get(sessionId)
      if (transport === undefined) return void res.writeHead(404).end("unknown session")
      return transport.handleRequest(req, res, body)
    }
    if (req.method === "POST" && (body as { method?: unknown } | undefined)?.method === "initialize") {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, transport),
        onsessionclosed: (id) => void transports.delete(id)
      })
      await (options.makeServer ?? makeServer)(aborted).connect(transport)
      return transport.handleRequest(req, res, body)
    }
    res.writeHead(400).end("no session")
  }

  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    const body = req.method === "POST" ? await readJsonBody(req) : undefined
    requests.push({ method: req.method ?? "", path, headers: req.headers, body })
    cors(req, res)
    try {
      if (req.method === "OPTIONS") {
        if (req.headers.origin === options.pageOrigin) {
          res.setHeader("access-control-allow-methods", "GET, POST, DELETE")
          res.setHeader("access-control-allow-headers", allowedHeaders.join(", "))
          res.setHeader("access-control-max-age", "0")
        }
        return void res.writeHead(204).end()
      }
      if (path === "/.well-known/oauth-protected-resource/secure/mcp") {
        return void res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify(metadata("/secure/mcp"))
        )
      }
      if (path === "/.well-known/oauth-protected-resource/moved/mcp") {
        return void res.writeHead(302, { location: "/.well-known/oauth-protected-resource/secure/mcp" }).end()
      }
      if (path === "/mcp") return await handleMcp(req, res, body)
      if (path === "/secure/mcp" || path === "/moved/mcp") {
        const header = req.headers.authorization ?? ""
        const token = header.startsWith("Bearer ") ? header.slice(7) : ""
        if (token === "" || !(await introspect(token, `${origin}/secure/mcp`))) {
          return void res.writeHead(401, {
            "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${path}"`
          }).end()
        }
        return await handleMcp(req, res, body)
      }
      res.writeHead(404).end()
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e))
    }
  })
  const listening = await listenLoopback(server)
  origin = `http://127.0.0.1:${listening.port}`
  return {
    origin,
    requests,
    aborted,
    expireSessions: (options) => {
      const forgotten = [...transports.values()]
      transports.clear()
      if (options?.close === true) { for (const transport of forgotten) void transport.close() }
      else for (const transport of forgotten) expired.push(transport)
    },
    close: async () => {
      for (const transport of [...transports.values(), ...expired]) await transport.close()
      await listening.close()
    }
  }
}
