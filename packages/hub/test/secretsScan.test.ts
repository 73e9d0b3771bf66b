// The secrets scan: a NodeHub with every place a secret travels (an API key in a server URL's query,
// a literal Authorization header added at run time, an OAuth authorization-code flow, metadata that
// names another resource, a stdio server that prints its secret env value and an expanded argument
// on stderr and dies), observed through everything an app exports or keeps: every log line (a test
// Logger at level All), every span (OpenTelemetry's in-memory exporter), the bytes of every store
// (the hub's file KeyValueStore and the file token store), statuses and error messages. No secret
// may appear in any of them.
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Authorizer, NodeTokenStore, UrlPolicy } from "@mcp-effect/oauth"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { z } from "zod"
import * as ConfigSealer from "../src/ConfigSealer.js"
import * as NodeFileKeyValueStore from "../src/NodeFileKeyValueStore.js"
import * as NodeHub from "../src/NodeHub.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import { statusesWhere, text } from "./fixtures/registry.js"

const secrets = {
  apiKey: "scan-api-key-0a1b2c3d4e5f",
  header: "scan-header-token-0a1b2c3d4e5f",
  code: "scan-auth-code-0a1b2c3d4e5f",
  access: "scan-access-token-0a1b2c3d4e5f",
  refresh: "scan-refresh-token-0a1b2c3d4e5f",
  stdioEnv: "scan-stdio-env-0a1b2c3d4e5f",
  expanded: "scan-expanded-arg-0a1b2c3d4e5f"
}
const redirectUri = "http://127.0.0.1:8976/callback"

/** One loopback server: MCP endpoints (keyed, guarded by OAuth, with mismatched metadata) and the authorization server. */
const scanServer: Effect.Effect<{ readonly origin: string }, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>()
    const sockets = new Set<Socket>()
    let origin = ""
    const json = (res: http.ServerResponse, status: number, body: unknown) =>
      void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
    const mcp = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => {
      const id = req.headers["mcp-session-id"]
      if (typeof id === "string") {
        const known = sessions.get(id)
        return known === undefined ? void res.writeHead(404).end() : known.handleRequest(req, res, body)
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport)
      })
      const server = new McpServer({ name: "scan", version: "1.0.0" })
      server.registerTool("echo", { description: "echoes", inputSchema: { message: z.string() } }, async ({ message }) => ({
        content: [{ type: "text", text: `echo: ${message}` }]
      }))
      await server.connect(transport)
      return transport.handleRequest(req, res, body)
    }
    const challenge = (res: http.ServerResponse, path: string) =>
      void res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${path}"`
      }).end()
    const server = http.createServer(async (req, res) => {
      let raw = ""
      for await (const chunk of req) raw += chunk
      const url = new URL(req.url ?? "/", origin)
      const body = raw === "" || req.method !== "POST" || !req.url?.match(/^\/(keyed|guarded)/) ? undefined : JSON.parse(raw)
      switch (url.pathname) {
        case "/keyed":
          if (url.searchParams.get("api_key") !== secrets.apiKey || req.headers.authorization !== `Bearer ${secrets.header}`) {
            return void res.writeHead(403).end()
          }
          return mcp(req, res, body)
        case "/guarded":
          return req.headers.authorization === `Bearer ${secrets.access}` ? mcp(req, res, body) : challenge(res, "/guarded")
        case "/broken":
          return void res.writeHead(500, { "content-type": "text/plain" }).end(`failed for ${req.url}`)
        case "/mismatch":
          return challenge(res, "/mismatch")
        case "/.well-known/oauth-protected-resource/guarded":
          return json(res, 200, { resource: `${origin}/guarded`, authorization_servers: [origin] })
        case "/.well-known/oauth-protected-resource/mismatch":
          return json(res, 200, { resource: `${origin}/elsewhere`, authorization_servers: [origin] })
        case "/.well-known/oauth-authorization-server":
          return json(res, 200, {
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ["code"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["none"],
            authorization_response_iss_parameter_supported: true
          })
        case "/register":
          return json(res, 201, { client_id: "scan-client", token_endpoint_auth_method: "none", redirect_uris: [redirectUri] })
        case "/authorize": {
          const back = new URL(url.searchParams.get("redirect_uri") ?? redirectUri)
          back.searchParams.set("code", secrets.code)
          back.searchParams.set("state", url.searchParams.get("state") ?? "")
          back.searchParams.set("iss", origin)
          return void res.writeHead(302, { location: back.href }).end()
        }
        case "/token": {
          const form = new URLSearchParams(raw)
          if (form.get("grant_type") === "authorization_code" && form.get("code") !== secrets.code) {
            return json(res, 400, { error: "invalid_grant" })
          }
          return json(res, 200, {
            access_token: secrets.access,
            refresh_token: secrets.refresh,
            token_type: "Bearer",
            expires_in: 3600
          })
        }
        default:
          return void res.writeHead(404).end()
      }
    })
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const close = () =>
      new Promise<void>((resolve) => {
        for (const transport of sessions.values()) void transport.close()
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
    return { origin, close }
  }),
  (server) => Effect.promise(server.close)
)

/** Every file under a directory, as text. */
const filesUnder = (directory: string): Array<string> =>
  Fs.readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => Fs.readFileSync(Path.join(entry.parentPath, entry.name), "utf8"))

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-secrets-scan-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true }))
)

describe("secrets scan", () => {
  it.scopedLive("no secret reaches a log, a span, a store, a status or an error", () => {
    const exporter = new InMemorySpanExporter()
    const logs: Array<string> = []
    const logger = Logger.make(({ annotations, cause, message }) => {
      logs.push(JSON.stringify(message) + " " + Cause.pretty(cause) + " " + JSON.stringify([...annotations]))
    })
    const observed = Layer.mergeAll(
      Logger.replace(Logger.defaultLogger, logger),
      Logger.minimumLogLevel(LogLevel.All),
      NodeSdk.layer(() => ({ resource: { serviceName: "secrets-scan" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
    )
    return Effect.gen(function*() {
      const { origin } = yield* scanServer
      const storage = yield* temporaryDirectory
      const tokens = yield* temporaryDirectory
      const stdioScript = "console.error('starting with token ' + process.env.SCAN_TOKEN + ' and ' + process.argv[1]);" +
        "process.exit(1)"
      const parsed = ServerConfig.fromJson({
        mcpServers: {
          guarded: { url: `${origin}/guarded`, auth: { type: "oauth2" } },
          mismatch: { url: `${origin}/mismatch?api_key=${secrets.apiKey}`, auth: { type: "oauth2" } },
          // a server that answers 500, and one nobody listens for
          broken: { url: `${origin}/broken?api_key=${secrets.apiKey}` },
          refused: { url: `http://127.0.0.1:1/mcp?api_key=${secrets.apiKey}` },
          crashing: { command: process.execPath, args: ["-e", stdioScript, "${SCAN_EXPANDED}"], env: { SCAN_TOKEN: secrets.stdioEnv } }
        }
      })
      const hub = NodeHub.layer<unknown>({
        config: Either.getOrThrow(parsed),
        storage: NodeFileKeyValueStore.layer(storage),
        tokens: NodeTokenStore.layer({ directory: tokens }).pipe(Layer.provide(NodeContext.layer)),
        authorizer: Authorizer.layerFollowRedirect({ redirectUri, policy: UrlPolicy.loopbackDevelopment }).pipe(
          Layer.provide(NodeHttpClient.layerUndici)
        ),
        reconnect: { schedule: Schedule.stop }
      }).pipe(Layer.provide(ConfigSealer.layer(Redacted.make(Buffer.alloc(32, 3).toString("base64")))))
      const context = yield* Layer.build(hub)
      const registry = context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service

      // a server added at run time, with a literal token in a header and a key in its query
      yield* registry.add(Either.getOrThrow(ServerConfig.fromEntry("keyed", {
        url: `${origin}/keyed?api_key=${secrets.apiKey}`,
        headers: { Authorization: `Bearer ${secrets.header}` }
      })))
      const statuses = yield* statusesWhere(registry, (s) =>
        (s.get("keyed")?.toolCount ?? 0) > 0 && (s.get("guarded")?.toolCount ?? 0) > 0 &&
        s.get("crashing")?._tag === "Failed" && s.get("mismatch")?.lastError !== undefined &&
        s.get("broken")?._tag === "Failed" && s.get("refused")?._tag === "Failed")
      const keyed = yield* registry.client("keyed")
      expect(text(yield* keyed.callTool({ name: "echo", arguments: { message: "k" } }))).toBe("echo: k")
      const guarded = yield* registry.client("guarded")
      expect(text(yield* guarded.callTool({ name: "echo", arguments: { message: "g" } }))).toBe("echo: g")

      // what the scan must see to be meaningful: the failures and their quoted output are there
      const crashing = statuses.get("crashing")!.lastError!
      expect(crashing.message).toContain("starting with token <redacted> and <redacted>")
      const mismatch = statuses.get("mismatch")!.lastError!
      expect(mismatch.message).toContain("api_key=<redacted>")
      const failed = ["crashing", "mismatch", "broken", "refused"].map((name) => statuses.get(name)!.lastError!)
      const errors = failed.map((error) => `${error.message} ${Cause.pretty(Cause.fail(error))}`)

      yield* Effect.promise(() => exporter.forceFlush())
      const spans = exporter.getFinishedSpans()
      expect(spans.some((span) => span.attributes["url.full"] === `${origin}/keyed?api_key=<redacted>`)).toBe(true)
      expect(spans.some((span) => String(span.attributes["http.response.header.location"]).includes("code=<redacted>")))
        .toBe(true)
      const spanText = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.status, span.events]))
      const storeText = [...filesUnder(storage), ...filesUnder(tokens)].join("\n")
      expect(storeText).toContain("keyed")
      expect(logs.some((line) => line.includes("starting with token <redacted>"))).toBe(true)

      const everything: Record<string, string> = {
        logs: logs.join("\n"),
        spans: spanText,
        stores: storeText,
        statuses: JSON.stringify([...statuses.values()]),
        errors: errors.join("\n")
      }
      for (const [where, seen] of Object.entries(everything)) {
        for (const [name, secret] of Object.entries(secrets)) {
          expect(seen.includes(secret), `${name} found in ${where}`).toBe(false)
        }
      }
    }).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SCAN_EXPANDED", secrets.expanded]]))),
      Effect.provide(observed)
    )
  }, { timeout: 60_000 })
})
