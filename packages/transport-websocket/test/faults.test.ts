// One connection at a time against a real WebSocket server on 127.0.0.1:
// frames that are not messages, oversized frames, subprotocols, handshake
// refusals, close codes, open timeouts and bad options, each a typed outcome.
import * as Socket from "@effect/platform/Socket"
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpError, McpTransport } from "@mcp-effect/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as net from "node:net"
import * as WS from "ws"
import { WebSocketError, WebSocketTransport } from "../src/index.js"
import { NodeWebSocketTransport } from "../src/node.js"
import { awaitSleepUntil, connections, realSleep, resource, waitFor } from "./fixtures/harness.js"
import { startWsServer } from "./fixtures/sdkWebSocketServer.js"

const nodeConstructor = (options?: Parameters<typeof NodeWebSocketTransport.makeConstructor>[0]) =>
  Layer.effect(Socket.WebSocketConstructor, NodeWebSocketTransport.makeConstructor(options))

// a WebSocket with no size limit of its own, as in a browser: the transport checks each frame once it arrived
const plainConstructor = Layer.succeed(
  Socket.WebSocketConstructor,
  (url: string, protocols?: string | Array<string>) =>
    new WS.WebSocket(url, protocols) as unknown as globalThis.WebSocket
)

// a WebSocket that asks for no subprotocol, as a platform that does not check the answer would end up
const noProtocolConstructor = Layer.succeed(
  Socket.WebSocketConstructor,
  (url: string) => new WS.WebSocket(url) as unknown as globalThis.WebSocket
)

// no retry: the first failure is the answer
const once: McpTransport.ReconnectOptions = { firstConnect: Schedule.stop, schedule: Schedule.stop }

/** How a connect failed: the cause of the `Exhausted` error the transport gives up with. */
const connectFailure = (pull: Effect.Effect<McpTransport.Connection, Option.Option<McpError.TransportError>>) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(pull)
    expect(Option.isSome(error)).toBe(true)
    const exhausted = Option.getOrThrow(error)
    expect(exhausted.reason).toBe("Exhausted")
    expect(exhausted.cause).toBeInstanceOf(McpError.TransportError)
    return exhausted.cause as McpError.TransportError
  })

const bigNotification = (size: number) =>
  JSON.stringify(JsonRpc.notification("notifications/message", { level: "info", data: "x".repeat(size) }))

describe("WebSocketTransport: faults on one connection", () => {
  it.scopedLive("a frame that is not JSON, and a binary frame, arrive as Malformed; the connection stays up", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer())
      const connection = yield* (yield* connections({ url: server.url }))
      const received = yield* McpTransport.incoming(connection).pipe(Stream.take(3), Stream.runCollect, Effect.fork)
      yield* waitFor("the server's socket", () => server.open() === 1)
      server.sendRaw("this is not json")
      server.sendRaw(new Uint8Array([123, 125]))
      server.sendRaw(JSON.stringify(JsonRpc.notification("notifications/message", { level: "info", data: "after" })))
      const [notJson, binary, after] = Chunk.toReadonlyArray(yield* Fiber.join(received))
      expect(JsonRpc.isMalformed(notJson!) && notJson.error.reason).toBe("Json")
      expect(JsonRpc.isMalformed(binary!) && binary.error.reason).toBe("Envelope")
      expect(JsonRpc.isMalformed(binary!) && binary.error.message).toContain("binary frame")
      expect(after).toMatchObject({ method: "notifications/message", params: { data: "after" } })
      expect(server.closeCodes).toEqual([])
    }).pipe(Effect.provide(nodeConstructor())))

  for (
    const [name, constructor] of [
      ["ws refuses it while it arrives", nodeConstructor({ maxMessageBytes: 1024 })],
      ["checked once it arrived (browsers)", plainConstructor]
    ] as const
  ) {
    it.scopedLive(`a message over maxMessageBytes ends the connection with a typed error (${name})`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startWsServer())
        const connection = yield* (yield* connections({ url: server.url, maxMessageBytes: 1024 }))
        const ended = yield* McpTransport.incoming(connection).pipe(Stream.runDrain, Effect.flip, Effect.fork)
        yield* waitFor("the server's socket", () => server.open() === 1)
        server.sendRaw(bigNotification(1000))
        const error = yield* Fiber.join(ended)
        expect(error).toBeInstanceOf(McpError.TransportError)
        expect(error).toMatchObject({ reason: "Read", phase: "message-size" })
        expect(error.message).toContain("larger than the limit of 1024 bytes")
        // the client closed the socket with 1009 (message too big)
        yield* waitFor("the socket to close", () => server.closeCodes.length === 1)
        expect(server.closeCodes).toEqual([1009])
        const sent = yield* Effect.flip(connection.send(JsonRpc.notification("notifications/initialized")))
        expect(sent).toMatchObject({ _tag: "TransportError", reason: "Write" })
      }).pipe(Effect.provide(constructor)))
  }

  it.scopedLive("a reader of incoming more than incomingCapacity messages behind ends the connection; nothing is lost silently", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer())
      const connection = yield* (yield* connections({ url: server.url, incomingCapacity: 2 }))
      yield* waitFor("the server's socket", () => server.open() === 1)
      for (const n of [1, 2, 3]) {
        server.sendRaw(JSON.stringify(JsonRpc.notification("notifications/message", { level: "info", data: n })))
      }
      // nobody reads: the third message does not fit, the client closes the socket
      yield* waitFor("the socket to close", () => server.closeCodes.length === 1)
      expect(server.closeCodes).toEqual([1008])
      const read: Array<unknown> = []
      const error = yield* McpTransport.incoming(connection).pipe(
        Stream.runForEach((m) => Effect.sync(() => read.push((m as JsonRpc.Notification).params?.data))),
        Effect.flip
      )
      expect(read).toEqual([1, 2])
      expect(error).toMatchObject({ reason: "Read", phase: "incoming" })
      expect(error.message).toContain("more than 2 messages waited for a reader")
    }).pipe(Effect.provide(nodeConstructor())))

  it.scopedLive("a send waits while more than maxBufferedBytes wait in the socket, and goes once the server reads", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer())
      const connection = yield* (yield* connections({ url: server.url, maxBufferedBytes: 1024 }))
      yield* waitFor("the server's socket", () => server.open() === 1)
      server.pauseAll(true)
      // more than the loopback socket buffers hold while the server does not read
      yield* connection.send(
        JsonRpc.notification("notifications/message", { level: "info", data: "x".repeat(16 * 1024 * 1024) })
      )
      const second = yield* Effect.fork(connection.send(JsonRpc.notification("notifications/roots/list_changed")))
      yield* realSleep(100)
      expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
      server.pauseAll(false)
      yield* Fiber.join(second)
      yield* waitFor("both messages", () => server.received.length === 2)
      expect(server.received.map((m) => m.method)).toEqual([
        "notifications/message",
        "notifications/roots/list_changed"
      ])
    }).pipe(Effect.provide(nodeConstructor())))

  for (const subprotocol of ["other", "none"] as const) {
    it.scopedLive(`a server answering subprotocol ${subprotocol} is refused with a typed error`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startWsServer({ subprotocol }))
        const error = yield* connectFailure(yield* connections({ url: server.url, reconnect: once }))
        expect(error).toMatchObject({ reason: "Connect", phase: "subprotocol" })
        expect(server.handshakes[0]!["sec-websocket-protocol"]).toBe("mcp")
      }).pipe(Effect.provide(nodeConstructor())))
  }

  it.scopedLive("a socket opened without the mcp subprotocol is refused after it opened", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer())
      const error = yield* connectFailure(yield* connections({ url: server.url, reconnect: once }))
      expect(error).toMatchObject({ reason: "Connect", phase: "subprotocol" })
      expect(error.message).toContain(`no subprotocol, not "mcp"`)
      yield* waitFor("the socket to close", () => server.closeCodes.length === 1)
      expect(server.closeCodes).toEqual([1002])
    }).pipe(Effect.provide(noProtocolConstructor)))

  it.scopedLive("a handshake refused with 401: a Connect error with the status; the header was sent, no secret in the error", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer({ refuseWith: 401 }))
      const pull = yield* connections({ url: `${server.url}?session=in-the-query`, reconnect: once })
      const error = yield* connectFailure(pull)
      expect(error).toMatchObject({ reason: "Connect", phase: "open", status: 401 })
      expect(server.handshakes[0]!.authorization).toBe("Bearer s3cret")
      expect(server.handshakes[0]!["x-api-key"]).toBe("plain")
      for (const message of [error.message, String(error.cause)]) {
        expect(message).not.toContain("s3cret")
        expect(message).not.toContain("in-the-query")
      }
    }).pipe(
      Effect.provide(
        nodeConstructor({ headers: { authorization: Redacted.make("Bearer s3cret"), "x-api-key": "plain" } })
      )
    ))

  for (
    const [code, reason, kind, named] of [
      [4001, "session replaced", "Closed", "4001 application code: session replaced"],
      [1007, "bad utf-8", "Read", "1007 invalid payload: bad utf-8"]
    ] as const
  ) {
    it.scopedLive(`close code ${code} ends the connection: reason ${kind}, phase close, the code and reason in the cause`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startWsServer())
        const connection = yield* (yield* connections({ url: server.url }))
        const ended = yield* McpTransport.incoming(connection).pipe(Stream.runDrain, Effect.flip, Effect.fork)
        yield* waitFor("the server's socket", () => server.open() === 1)
        server.closeAll(code, reason)
        const error = yield* Fiber.join(ended)
        expect(error).toMatchObject({ _tag: "TransportError", reason: kind, phase: "close" })
        expect(error.message).toContain(named)
        expect(error.cause).toBeInstanceOf(WebSocketError.ConnectionClosed)
        expect(error.cause).toMatchObject({ code, reason })
      }).pipe(Effect.provide(nodeConstructor())))
  }

  it.scopedLive("a close reason with escape, control and bidi characters reaches the message neutralised", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer())
      const connection = yield* (yield* connections({ url: server.url }))
      const ended = yield* McpTransport.incoming(connection).pipe(Stream.runDrain, Effect.flip, Effect.fork)
      yield* waitFor("the server's socket", () => server.open() === 1)
      const reason = "\u001b[2Jbye\r\nfake: ok \u202eevil"
      server.closeAll(4002, reason)
      const error = yield* Fiber.join(ended)
      expect(error.message).toContain("4002 application code: bye fake: ok evil")
      for (const c of ["\u001b", "\r", "\n", "\u202e"]) expect(error.message).not.toContain(c)
      expect((error.cause as WebSocketError.ConnectionClosed).message).toBe(error.message)
      // the raw reason stays available as data
      expect(error.cause).toMatchObject({ code: 4002, reason })
    }).pipe(Effect.provide(nodeConstructor())))

  it.scoped("a server that never answers the handshake: a Connect error after openTimeout (TestClock)", () =>
    Effect.gen(function*() {
      // accepts TCP, never answers the upgrade
      const silent = yield* resource(() =>
        new Promise<{ port: number; close: () => Promise<void>; accepted: () => number }>((resolve) => {
          const sockets = new Set<net.Socket>()
          const server = net.createServer((socket) => void sockets.add(socket))
          server.listen(0, "127.0.0.1", () =>
            resolve({
              port: (server.address() as net.AddressInfo).port,
              accepted: () => sockets.size,
              close: () =>
                new Promise<void>((done) => {
                  for (const socket of sockets) socket.destroy()
                  server.close(() => done())
                })
            }))
        })
      )
      const pull = yield* connections({
        url: `ws://127.0.0.1:${silent.port}/mcp`,
        openTimeout: "5 seconds",
        reconnect: once
      })
      const failed = yield* Effect.fork(connectFailure(pull))
      yield* waitFor("the TCP connection", () => silent.accepted() === 1)
      yield* awaitSleepUntil(5000)
      yield* TestClock.adjust("4999 millis")
      expect(Option.isNone(yield* Fiber.poll(failed))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(failed)
      expect(error).toMatchObject({ reason: "Connect", phase: "open" })
      expect(error.message).toContain("did not open within 5s")
    }).pipe(Effect.provide(nodeConstructor())))

  it.scoped("after the server closed the socket, the next one opens on the reconnect schedule's delay (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startWsServer())
      const pull = yield* connections({ url: server.url, reconnect: { schedule: Schedule.spaced("1 second") } })
      const first = yield* pull
      yield* waitFor("the server's socket", () => server.open() === 1)
      server.closeAll(1012, "service restart")
      expect(yield* Effect.flip(Stream.runDrain(McpTransport.incoming(first)))).toMatchObject({
        reason: "Closed",
        phase: "close"
      })
      const next = yield* Effect.fork(pull)
      yield* awaitSleepUntil(1000)
      yield* TestClock.adjust("999 millis")
      yield* realSleep(50)
      expect(server.accepted()).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(next)
      expect(server.accepted()).toBe(2)
    }).pipe(Effect.provide(nodeConstructor())))

  it.scopedLive("a platform constructor that throws is a failed open, never a defect", () =>
    Effect.gen(function*() {
      const error = yield* connectFailure(yield* connections({ url: "ws://127.0.0.1:9/mcp", reconnect: once }))
      expect(error).toMatchObject({ reason: "Connect", phase: "open" })
    }).pipe(Effect.provide(Layer.succeed(Socket.WebSocketConstructor, () => {
      throw new SyntaxError("refused by the platform")
    }))))

  it.effect("bad options are typed errors, never defects", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<[WebSocketTransport.Options, string]> = [
        [{ url: "http://127.0.0.1/mcp" }, "url must be ws: or wss:"],
        [{ url: "not a url" }, "url is not an absolute URL"],
        [{ url: "ws://user:pw@127.0.0.1/mcp" }, "must not carry credentials"],
        [{ url: "ws://127.0.0.1/mcp", maxMessageBytes: 0 }, "maxMessageBytes"],
        [{ url: "ws://127.0.0.1/mcp", incomingCapacity: 1.5 }, "incomingCapacity"],
        [{ url: "ws://127.0.0.1/mcp", openTimeout: "soon" as never }, "openTimeout"]
      ]
      for (const [options, what] of bad) {
        const error = yield* Effect.flip(WebSocketTransport.make(options))
        expect(error).toMatchObject({ _tag: "TransportError", phase: "options" })
        expect(error.message).toContain(what)
      }
      const header = yield* Effect.flip(NodeWebSocketTransport.makeConstructor({ headers: { "bad header": "x" } }))
      expect(header).toMatchObject({ _tag: "TransportError", phase: "options" })
      const injected = yield* Effect.flip(
        NodeWebSocketTransport.makeConstructor({ headers: { authorization: Redacted.make("Bearer a\r\nx-evil: 1") } })
      )
      expect(injected.message).toBe("invalid WebSocketTransport option: the value of header authorization")
      const reserved = yield* Effect.flip(
        NodeWebSocketTransport.makeConstructor({ headers: { "Sec-WebSocket-Protocol": "x" } })
      )
      expect(reserved.message).toContain("set by the handshake")
    }).pipe(Effect.provide(nodeConstructor())))
})
