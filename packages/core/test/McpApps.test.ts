import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ClientExtensions from "../src/ClientExtensions.js"
import * as McpApps from "../src/McpApps.js"
import * as McpClient from "../src/McpClient.js"
import type * as McpSchema from "../src/McpSchema.js"
import type * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import * as ToolCallLog from "../src/ToolCallLog.js"
import { clientInfo, receivedWith, textResult } from "./utils.js"

const uri = "ui://clock/app.html"
const html = "<!doctype html><html><body>clock</body></html>"

const tool = (meta?: Record<string, unknown>): McpSchema.Tool => ({
  name: "get-time",
  inputSchema: { type: "object" },
  ...(meta !== undefined ? { _meta: meta } : {})
})

const uiServer = (
  era: "legacy" | "modern",
  csp: Record<string, unknown> = { connectDomains: ["https://api.example.com"] }
) =>
  TestServer.layer({
    era,
    capabilities: { resources: {}, tools: {} },
    handlers: {
      "resources/read": ({ params }) =>
        Effect.succeed({
          contents: [{
            uri: params.uri,
            mimeType: McpApps.mimeType,
            text: html,
            _meta: { ui: { csp, permissions: { camera: {} }, prefersBorder: true } }
          }]
        }),
      "tools/call": () => Effect.succeed(textResult("12:00"))
    }
  })

const clientOver = (server: Layer.Layer<TestServer.TestServer | McpTransport.McpTransport>) =>
  McpClient.layer({ clientInfo, prefetch: false }).pipe(
    Layer.provideMerge(server),
    Layer.provide(ClientExtensions.layer({ ...McpApps.capability }))
  )

describe("McpApps", () => {
  describe("tool metadata", () => {
    it("reads the UI resource from _meta.ui.resourceUri, or the draft key", () => {
      expect(McpApps.resourceUri(tool({ ui: { resourceUri: uri } }))).toEqual(Option.some(uri))
      expect(McpApps.resourceUri(tool({ "ui/resourceUri": uri }))).toEqual(Option.some(uri))
      expect(McpApps.resourceUri(tool({ ui: { resourceUri: "https://evil.example/app.html" } }))).toEqual(Option.none())
      expect(McpApps.resourceUri(tool())).toEqual(Option.none())
    })

    it("offers a tool to the model unless its visibility leaves the model out", () => {
      expect(McpApps.isModelVisible(tool())).toBe(true)
      expect(McpApps.isModelVisible(tool({ ui: { resourceUri: uri, visibility: ["model", "app"] } }))).toBe(true)
      expect(McpApps.isModelVisible(tool({ ui: { resourceUri: uri, visibility: ["app"] } }))).toBe(false)
      expect(McpApps.isAppVisible(tool({ ui: { resourceUri: uri, visibility: ["app"] } }))).toBe(true)
      expect(McpApps.isAppVisible(tool({ ui: { visibility: ["model"] } }))).toBe(false)
    })

    it("allows nobody when visibility is declared but malformed", () => {
      expect(McpApps.visibility(tool({ ui: { visibility: "model" } }))).toEqual([])
      expect(McpApps.visibility(tool({ ui: { visibility: ["everyone"] } }))).toEqual([])
    })
  })

  describe("reading a UI resource", () => {
    for (const era of ["legacy", "modern"] as const) {
      it.effect(`reads the HTML and the declared CSP and permissions (${era} era)`, () =>
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const ui = yield* McpApps.read(client, uri)
          expect(ui).toEqual({
            uri,
            html,
            csp: {
              connectDomains: ["https://api.example.com"],
              resourceDomains: [],
              frameDomains: [],
              baseUriDomains: []
            },
            permissions: ["camera"],
            prefersBorder: true,
            domain: undefined
          })
          expect((yield* receivedWith("resources/read")).length).toBe(1)
        }).pipe(Effect.provide(clientOver(uiServer(era)))))
    }

    it.effect("advertises the extension with the MIME type it renders", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.initialized
        const [initialize] = yield* receivedWith("initialize")
        const params = initialize!.params as { capabilities: { extensions: unknown } }
        expect(params.capabilities.extensions).toEqual({
          "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] }
        })
      }).pipe(Effect.provide(clientOver(uiServer("legacy")))))

    it.effect("refuses a URI that is not ui:// without reading it", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const error = yield* Effect.flip(McpApps.read(client, "file:///etc/passwd"))
        expect(error._tag === "McpAppsError" && error.reason).toBe("NotUiResource")
        expect(yield* receivedWith("resources/read")).toEqual([])
      }).pipe(Effect.provide(clientOver(uiServer("legacy")))))

    it.effect("refuses a declared source that is not an origin", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const error = yield* Effect.flip(McpApps.read(client, uri))
        expect(error._tag === "McpAppsError" && error.reason).toBe("InvalidCsp")
      }).pipe(Effect.provide(clientOver(uiServer("legacy", { connectDomains: ["https://a.example; script-src *"] })))))

    it("refuses contents of another MIME type", () => {
      const result = McpApps.fromResult(uri, { contents: [{ uri, mimeType: "text/html", text: html }] })
      expect(Either.isLeft(result) && result.left.reason).toBe("WrongMimeType")
    })
  })

  describe("sandbox", () => {
    it("allows only inline code and the declared origins", () => {
      const policy = McpApps.contentSecurityPolicy({
        connectDomains: ["https://api.example.com"],
        resourceDomains: ["https://*.cdn.example"],
        frameDomains: [],
        baseUriDomains: []
      })
      expect(policy).toContain("default-src 'none'")
      expect(policy).toContain("connect-src https://api.example.com")
      expect(policy).toContain("script-src 'unsafe-inline' https://*.cdn.example")
      expect(policy).toContain("frame-src 'none'")
      expect(policy).toContain("base-uri 'none'")
      expect(McpApps.sandbox).toBe("allow-scripts")
      expect(McpApps.allow(["camera", "clipboardWrite"])).toBe("camera; clipboard-write")
    })
  })

  describe("call origin", () => {
    it.effect("records the app as the origin of the calls it makes", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const log = yield* ToolCallLog.ToolCallLog
        yield* client.callTool({ name: "get-time", arguments: {} })
        yield* ToolCallLog.withOrigin(client.callTool({ name: "get-time", arguments: {} }), { _tag: "App", uri })
        const records = yield* log.records.get
        expect(records.map((r) => r.origin)).toEqual([undefined, { _tag: "App", uri }])
      }).pipe(Effect.provide(clientOver(uiServer("legacy")).pipe(Layer.provideMerge(ToolCallLog.layerMemory())))))
  })
})
