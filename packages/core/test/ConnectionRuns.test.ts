import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as McpClient from "../src/McpClient.js"
import * as McpTransport from "../src/McpTransport.js"
// after McpTransport, which it imports back
import * as Reconnect from "../src/internal/reconnect.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, reconnecting } from "./utils.js"

describe("a run of a connection stream", () => {
  const never = Effect.never

  it("is pulled without stream stages when fromConnect built it, also inside McpTransport.suspend", () => {
    expect(Reconnect.isPulls(Reconnect.startRun(McpTransport.fromConnect(never)))).toBe(true)
    let made = 0
    const suspended = McpTransport.suspend(() => {
      made++
      return McpTransport.fromConnect(never)
    })
    expect(made).toBe(0)
    expect(Reconnect.isPulls(Reconnect.startRun(suspended))).toBe(true)
    expect(made).toBe(1)
    // any other stream runs as the stream it is
    const mapped = Stream.map(McpTransport.fromConnect(never), identity)
    expect(Reconnect.isPulls(Reconnect.startRun(mapped))).toBe(false)
    expect(Reconnect.isPulls(Reconnect.startRun(McpTransport.suspend(() => mapped)))).toBe(false)
  })

  /** The test server's transport inside `McpTransport.suspend`, counting the runs; `wrap` changes the stream made. */
  const suspendedTransport = (
    runs: { made: number },
    wrap: (stream: Stream.Stream<McpTransport.Connection, never>) => Stream.Stream<McpTransport.Connection, never>
  ) =>
    Layer.effect(
      McpTransport.McpTransport,
      Effect.map(McpTransport.McpTransport, (inner) => ({
        connections: McpTransport.suspend(() => {
          runs.made++
          return wrap(inner.connections as Stream.Stream<McpTransport.Connection, never>)
        })
      }))
    )

  const server = TestServer.layer({ reconnect: { schedule: Schedule.spaced("4 seconds") } })

  it.effect("is made once per session and reconnects with the session's retry reports (its services reach the pulls)", () => {
    const runs = { made: 0 }
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      yield* test.dropConnection
      // `retrying` is the session's ConnectionObserver, which fromConnect finds in the pull's context
      const state = yield* reconnecting
      expect(state.nextDelay && Duration.toMillis(state.nextDelay)).toBe(4000)
      yield* TestClock.adjust("4 seconds")
      expect((yield* client.initialized).generation).toBe(2)
      expect(yield* test.connections).toBe(2)
      expect(runs.made).toBe(1)
    }).pipe(
      Effect.provide(
        McpClient.layer({ clientInfo, prefetch: false }).pipe(Layer.provide(suspendedTransport(runs, identity)), Layer.provideMerge(server))
      )
    )
  })

  it.effect("of any other stream inside McpTransport.suspend is read as a stream", () => {
    const runs = { made: 0 }
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      expect((yield* client.initialized).generation).toBe(1)
      yield* test.dropConnection
      yield* TestClock.adjust("4 seconds")
      expect((yield* client.initialized).generation).toBe(2)
      expect(runs.made).toBe(1)
    }).pipe(
      Effect.provide(
        McpClient.layer({ clientInfo, prefetch: false }).pipe(
          Layer.provide(suspendedTransport(runs, (stream) => Stream.map(stream, identity))),
          Layer.provideMerge(server)
        )
      )
    )
  })
})
