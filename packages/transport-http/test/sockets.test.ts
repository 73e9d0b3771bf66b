import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { connections, peer, resource, resultOf } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"

// Every answer read to its end leaves its TCP connection to the HTTP client's pool. A body left
// unread keeps its connection busy, and one the transport cancelled makes the client close it
// (undici then opens one more for the aborted request, left idle): either way later requests open
// new connections. (SSE answers that end some time after their event: faults.test.ts.)
const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["NodeHttpClient (undici Agent)", NodeHttpClient.layerUndici],
  ["FetchHttpClient (Node's fetch)", FetchHttpClient.layer]
]

const echo = (text: string) => ({ name: "echo", arguments: { text } })

describe("HTTP connections are reused", () => {
  for (const mode of ["stateful", "json"] as const) {
    for (const [name, layer] of clients) {
      it.scopedLive(`${mode} (${mode === "json" ? "JSON" : "SSE"} answers), ${name}: calls open no connection the pool has`, () =>
        Effect.gen(function*() {
          const server = yield* resource(() => startSdkServer(mode))
          const next = yield* connections({ url: server.url })
          const client = yield* peer(yield* next)
          yield* client.initialize
          // (the initialized notification, answered 202 without a body, and the GET stream open at once)
          resultOf(yield* client.request("tools/call", echo("warm")))
          const settled = server.connections()
          expect(settled).toBeLessThanOrEqual(3)

          for (let i = 0; i < 10; i++) resultOf(yield* client.request("tools/call", echo(`one ${i}`)))
          yield* client.send("notifications/roots/list_changed")
          resultOf(yield* client.request("ping"))
          expect(server.connections()).toBe(settled)

          const burst = (round: string) =>
            Effect.forEach(
              Array.from({ length: 10 }, (_, i) => i),
              (i) => Effect.map(client.request("tools/call", echo(`${round} ${i}`)), resultOf),
              { concurrency: "unbounded" }
            )
          const first = yield* burst("first")
          expect(first.map((r) => r.content[0].text)).toEqual(Array.from({ length: 10 }, (_, i) => `first ${i}`))
          const afterFirst = server.connections()
          expect(afterFirst).toBeLessThanOrEqual(settled + 10)
          yield* burst("second")
          // the first burst's connections serve the second (one still finishing its answer may be busy)
          expect(server.connections() - afterFirst).toBeLessThanOrEqual(2)
          expect(server.closedByClients()).toBe(0)
        }).pipe(Effect.provide(layer)))
    }
  }
})
