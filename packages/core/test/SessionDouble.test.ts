// A client on a session made elsewhere (a test double): alone in its file, so no session of this file
// registered the era codecs before it.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as ClientSession from "../src/ClientSession.js"
import * as McpClient from "../src/McpClient.js"
import * as McpSchema from "../src/McpSchema.js"

const initialized: ClientSession.Initialized = {
  protocolVersion: McpSchema.MODERN_PROTOCOL_VERSION,
  serverInfo: { name: "double", version: "1.0.0" },
  capabilities: {},
  instructions: undefined,
  generation: 1
}

const ready: ClientSession.ConnectionState = { _tag: "Ready", initialized }

const double = (sent: Array<string>): ClientSession.Service => ({
  request: (method) => Effect.sync(() => (sent.push(method), {})),
  notify: () => Effect.void,
  initialized: Effect.succeed(initialized),
  state: Subscribable.make({ get: Effect.succeed(ready), changes: Stream.make(ready) }),
  notifications: Stream.empty,
  subscribeNotifications: Effect.succeed(Stream.empty),
  malformed: Stream.empty,
  closed: Effect.never,
  stats: Effect.succeed({ droppedNotifications: 0, backlog: 0, retainedNotifications: 0, pending: 0 })
})

describe("a client on a session double", () => {
  it.effect("knows the era of the session's version: ping in 2026-07-28 is server/discover", () => {
    const sent: Array<string> = []
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.ping
      expect(sent).toEqual(["server/discover"])
    }).pipe(
      Effect.provide(
        McpClient.layerOnSession({ prefetch: false }).pipe(
          Layer.provide(Layer.succeed(ClientSession.ClientSession, double(sent)))
        )
      )
    )
  })
})
