/**
 * What the transport assumes of `@effect/platform` beyond its public API
 * (`src/internal/platform.ts`), checked against the installed platform. A
 * platform upgrade that moves a response's body, its wrappers or the
 * response registry fails here, naming the assumption.
 */
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Platform from "../src/internal/platform.js"
import * as RequestRefs from "../src/internal/requestRefs.js"
import { resource } from "./fixtures/harness.js"

/** A loopback server recording each request's headers: `/redirect` answers 302, anything else a text body. */
const startServer = () =>
  new Promise<{
    readonly url: string
    readonly seen: Array<http.IncomingHttpHeaders>
    readonly close: () => Promise<void>
  }>((resolve) => {
    const seen: Array<http.IncomingHttpHeaders> = []
    const server = http.createServer((req, res) => {
      seen.push(req.headers)
      if (req.url === "/redirect") {
        res.writeHead(302, { location: "/elsewhere" })
        res.end()
        return
      }
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("body")
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      }))
  })

const isNodeReadable = (u: unknown) => typeof u === "object" && u !== null && "read" in u && "on" in u && "destroy" in u

/** Each client and where its responses keep their body. */
const clients: ReadonlyArray<
  readonly [string, Layer.Layer<HttpClient.HttpClient>, "node" | "web", "in source.body" | "source"]
> = [
  ["undici", NodeHttpClient.layerUndici, "node", "in source.body"],
  ["node:http", NodeHttpClient.layer, "node", "source"],
  ["fetch", FetchHttpClient.layer, "web", "in source.body"]
]

describe("the platform's internals the HTTP transport reads (src/internal/platform.ts)", () => {
  for (const [name, layer, kind, where] of clients) {
    it.scopedLive(`${name}: a response keeps its body ${where === "source" ? "as its source" : "in its source's body"}, under wrappers the registry holds`, () =>
      Effect.gen(function*() {
        const server = yield* resource(startServer)
        const client = yield* HttpClient.HttpClient
        const response = yield* client.execute(HttpClientRequest.get(server.url))
        const found = Platform.sourceOf(response)
        expect(found).toBeDefined()
        const body = where === "source" ? found!.source : found!.source.body
        if (kind === "node") expect(isNodeReadable(body)).toBe(true)
        else expect(body).toBeInstanceOf(ReadableStream)
        // the interruptible wrapper, whose inner response the registry aborts when it is collected unread
        expect(found!.wrapped.length).toBeGreaterThan(0)
        expect(typeof Platform.responseRegistry()?.unregister).toBe("function")
        expect(yield* response.text).toBe("body")
      }).pipe(Effect.provide(layer)))
  }

  it.scopedLive("requests read the settings RequestRefs sets from their fiber: no trace headers, and fetch's manual redirects", () =>
    Effect.gen(function*() {
      const server = yield* resource(startServer)
      const client = yield* HttpClient.HttpClient
      const refs = RequestRefs.make({ secretNames: ["x-secret"], tracePropagation: false })
      // outside: the platform's defaults (trace headers from the span, redirects followed)
      yield* Effect.withSpan(client.execute(HttpClientRequest.get(server.url)), "outside")
      expect(server.seen[0].traceparent).toBeDefined()
      const followed = yield* client.execute(HttpClientRequest.get(`${server.url}/redirect`))
      expect(followed.status).toBe(200)
      // inside: no trace headers, the redirect answered as it is
      const seenBefore = server.seen.length
      const inside = yield* Effect.withSpan(
        refs.around(client.execute(HttpClientRequest.get(`${server.url}/redirect`)), []),
        "inside"
      )
      expect(inside.status).toBe(302)
      expect(server.seen.length).toBe(seenBefore + 1)
      expect(server.seen[seenBefore].traceparent).toBeUndefined()
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
