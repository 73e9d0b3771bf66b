import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpClient from "../src/McpClient.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually } from "./utils.js"

describe("the inbound path is bounded", () => {
  it.effect(
    "a flood of 100k log messages to a slow consumer keeps the buffers within their capacity",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const test = yield* TestServer.TestServer
        yield* client.initialized
        // the slowest consumer of all: subscribed, and never gets round to reading
        yield* client.subscribeLogMessages
        let maxBacklog = 0
        let maxRetained = 0
        for (let i = 0; i < 100_000; i++) {
          yield* test.notify("notifications/message", { level: "info", data: i })
          if (i % 1000 === 0) {
            const stats = yield* client.session.stats
            maxBacklog = Math.max(maxBacklog, stats.backlog)
            maxRetained = Math.max(maxRetained, stats.retainedNotifications)
          }
        }
        const stats = yield* eventually(
          Effect.map(client.session.stats, (s) => s.backlog === 0 && s),
          10_000
        )
        expect(maxBacklog).toBeLessThanOrEqual(64)
        expect(Math.max(maxRetained, stats.retainedNotifications)).toBeLessThanOrEqual(100)
        expect(stats.retainedNotifications).toBe(100)
        // everything else was dropped and counted
        expect(stats.droppedNotifications).toBe(100_000 - 100)
        yield* client.ping
      }).pipe(
        Effect.scoped,
        Effect.provide(
          clientLayer({ capabilities: { logging: {} } }, { notificationCapacity: 100, inboundCapacity: 64 })
        )
      ),
    60_000
  )
})
