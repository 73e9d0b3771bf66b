import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@mcp-effect/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { Agent } from "undici"
import { startFaultServer } from "./fixtures/faultServer.js"
import { connections, peer, realSleep, resource, resultOf, waitFor } from "./fixtures/harness.js"

// Node's fetch (undici) kills a response body that stays silent for `bodyTimeout` (300 s by default).
// Here the timeout is 200 ms; the transport must resume the GET stream with Last-Event-ID.
const impatientFetch = Layer.merge(
  FetchHttpClient.layer,
  Layer.scoped(
    FetchHttpClient.RequestInit,
    Effect.acquireRelease(
      Effect.sync(() => ({ dispatcher: new Agent({ bodyTimeout: 200 }) }) as RequestInit),
      (init) => Effect.promise(() => (init as { dispatcher: Agent }).dispatcher.destroy())
    )
  )
)

const quietStream = Effect.gen(function*() {
  const server = yield* resource(() => startFaultServer())
  const next = yield* connections({ url: server.url, sseReconnect: Schedule.spaced("10 millis") })
  const client = yield* peer(yield* next)
  yield* client.initialize
  expect(resultOf(yield* client.request("ping"))).toEqual({})
  yield* realSleep(2500) // quiet for longer than the body timeout (undici checks it about once a second)
  yield* waitFor("the push", () => server.push("notifications/resources/list_changed") === 1)
  yield* waitFor(
    "the notification",
    () =>
      client.received.some((m) =>
        !JsonRpc.isMalformed(m) && "method" in m && m.method === "notifications/resources/list_changed"
      )
  )
  expect(yield* Deferred.isDone(client.ended)).toBe(false)
  return server.requests.filter((r) => r.method === "GET" && r.headers["last-event-id"]).length
})

describe("quiet GET streams on Node", () => {
  it.scopedLive("fetch: a GET stream killed by undici's body timeout is resumed and later notifications arrive", () =>
    Effect.gen(function*() {
      const resumes = yield* quietStream
      expect(resumes).toBeGreaterThanOrEqual(1)
    }).pipe(Effect.provide(impatientFetch)))

  it.scopedLive("NodeHttpClient (undici without body timeout): the quiet GET stream simply stays open", () =>
    Effect.gen(function*() {
      const resumes = yield* quietStream
      expect(resumes).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
