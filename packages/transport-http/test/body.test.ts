import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Body from "../src/internal/body.js"
import { resource } from "./fixtures/harness.js"

/**
 * A loopback server: `/chunks` answers three chunks (each written once the
 * previous one was read by the client's socket), `/open` one chunk and then
 * nothing, reporting when the client went away.
 */
const startServer = () =>
  new Promise<{ readonly url: string; readonly closed: Promise<void>; readonly close: () => Promise<void> }>(
    (resolve) => {
      let onClosed: () => void = () => {}
      const closed = new Promise<void>((done) => onClosed = done)
      const server = http.createServer((req, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        if (req.url === "/chunks") {
          res.write("one|", () => res.write("two|", () => res.end("three")))
          return
        }
        res.write("first")
        res.on("close", onClosed)
      })
      server.listen(0, "127.0.0.1", () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          closed,
          close: () =>
            new Promise((done) => {
              server.closeAllConnections()
              server.close(() => done())
            })
        }))
    }
  )

const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

const utf8 = new TextDecoder()

describe("reading a response body where the HttpClient keeps it", () => {
  for (const [name, layer] of clients) {
    it.scopedLive(`${name}: every chunk in order, also when the handler answers with an effect for one`, () =>
      Effect.gen(function*() {
        const server = yield* resource(startServer)
        const client = yield* HttpClient.HttpClient
        for (const slow of [false, true]) {
          const response = yield* client.execute(HttpClientRequest.get(`${server.url}/chunks`))
          let text = ""
          let chunks = 0
          yield* Body.read<never>(response, (chunk) => {
            text += utf8.decode(chunk)
            // a handler that must wait (a full inbound buffer) answers with an effect; reading goes on after it
            return slow && chunks++ === 0 ? Effect.as(Effect.yieldNow(), true) : true
          })
          expect(text).toBe("one|two|three")
          if (slow) expect(chunks).toBeGreaterThan(0)
        }
      }).pipe(Effect.provide(layer)))

    it.scopedLive(`${name}: a handler that stops releases the body, aborting its request`, () =>
      Effect.gen(function*() {
        const server = yield* resource(startServer)
        const client = yield* HttpClient.HttpClient
        const response = yield* client.execute(HttpClientRequest.get(`${server.url}/open`))
        const seen: Array<string> = []
        yield* Body.read<never>(response, (chunk) => {
          seen.push(utf8.decode(chunk))
          return false
        })
        expect(seen).toEqual(["first"])
        yield* Effect.promise(() => server.closed)
      }).pipe(Effect.provide(layer)))
  }

  it.scopedLive("a body read here is taken out of the platform's registry that aborts collected responses", () =>
    Effect.gen(function*() {
      const server = yield* resource(startServer)
      const client = yield* HttpClient.HttpClient
      const store = (globalThis as Record<string, unknown>)["effect/GlobalValue"] as Map<unknown, unknown>
      const registry = store.get("@effect/platform/HttpClient/responseRegistry") as {
        unregister: (response: unknown) => void
      }
      expect(typeof registry.unregister).toBe("function")
      const unregistered: Array<unknown> = []
      const original = registry.unregister
      registry.unregister = (response) => {
        unregistered.push(response)
        original(response)
      }
      yield* Effect.addFinalizer(() => Effect.sync(() => registry.unregister = original))
      const response = yield* client.execute(HttpClientRequest.get(`${server.url}/chunks`))
      yield* Body.read<never>(response, () => true)
      // without it, each finished response would be aborted (an AbortError with its stack) once collected
      expect(unregistered).toEqual([(response as unknown as { readonly original: unknown }).original])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
