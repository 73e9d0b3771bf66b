import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, reconnecting } from "./utils.js"

const connection: McpTransport.Connection = {
  inbound: McpTransport.makeInboundBuffer(1),
  send: () => Effect.void,
  description: "test"
}

describe("a run of a transport's connections", () => {
  it.effect("McpTransport.make: each open and each run of the stream is a run of its own, made when it starts", () =>
    Effect.gen(function*() {
      let made = 0
      const transport = McpTransport.make(() => {
        made++
        return { connect: Effect.succeed(connection) }
      }, "https://example.com/mcp")
      expect(made).toBe(0)
      expect(transport.endpoint).toBe("https://example.com/mcp")
      const run = transport.open!()
      expect(made).toBe(1)
      expect(yield* run.next).toBe(connection)
      yield* run.close
      expect(yield* Stream.runHead(transport.connections)).toEqual(Option.some(connection))
      expect(made).toBe(2)
    }))

  it.effect("McpTransport.make: a connector's connect is read for each attempt, not held by the run", () =>
    Effect.gen(function*() {
      let reads = 0
      const transport = McpTransport.make(() => ({
        get connect() {
          reads++
          return Effect.succeed(connection)
        }
      }))
      const run = transport.open!()
      expect(reads).toBe(0)
      expect(yield* run.next).toBe(connection)
      expect(reads).toBe(1)
      // the next connection comes after the reconnect schedule's delay
      const next = yield* Effect.fork(run.next)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(next)).toBe(connection)
      expect(reads).toBe(2)
      yield* run.close
    }))

  it.effect("McpTransport.layer: the transport's runs can be opened without a stream", () =>
    Effect.gen(function*() {
      const transport = yield* McpTransport.McpTransport
      expect(yield* transport.open!().next).toBe(connection)
    }).pipe(Effect.provide(McpTransport.layer(Effect.succeed(connection)))))

  /** The test server's transport with only its `open` (its stream fails when read), counting the runs. */
  const openOnly = (runs: { made: number }) =>
    Layer.effect(
      McpTransport.McpTransport,
      Effect.map(McpTransport.McpTransport, (inner) => ({
        connections: Stream.fail(new McpError.TransportError({ reason: "Connect", message: "read as a stream" })),
        open: () => {
          runs.made++
          return inner.open!()
        }
      }))
    )

  /** The test server's transport as a stream of its own, counting the runs. */
  const streamOnly = (runs: { made: number }) =>
    Layer.effect(
      McpTransport.McpTransport,
      Effect.map(McpTransport.McpTransport, (inner) => ({
        connections: Stream.suspend(() => {
          runs.made++
          return Stream.map(inner.connections, identity)
        })
      }))
    )

  const server = TestServer.layer({ reconnect: { schedule: Schedule.spaced("4 seconds") } })

  it.effect("a session reads the transport's open, once per session, and reconnects with its retry reports (its services reach the pulls)", () => {
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
        McpClient.layer({ clientInfo, prefetch: false }).pipe(Layer.provide(openOnly(runs)), Layer.provideMerge(server))
      )
    )
  })

  it.effect("a transport without open is read as its stream, once per session", () => {
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
          Layer.provide(streamOnly(runs)),
          Layer.provideMerge(server)
        )
      )
    )
  })
})
