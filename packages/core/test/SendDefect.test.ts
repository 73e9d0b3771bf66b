import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpTransport from "../src/McpTransport.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, eventually, textResult } from "./utils.js"

const isToolCall = (message: JsonRpc.Message) => JsonRpc.isRequest(message) && message.method === "tools/call"

/**
 * An in-memory transport whose send of `tools/call` dies, the way a transport
 * bug does (an error constructed with a missing field throws in the send).
 * Offering `sendNow` or not picks the path: sent from the caller's fiber, or
 * from a fiber of its own.
 */
const dyingSend = (atOnce: boolean) => {
  const logged: Array<string> = []
  const dying = (connection: McpTransport.Connection): McpTransport.Connection => ({
    ...connection,
    sendNow: atOnce ?
      (message) => {
        if (isToolCall(message)) throw new Error("boom in send")
        Effect.runFork(connection.send(message))
        return true
      } :
      undefined,
    send: (message) =>
      isToolCall(message) ?
        Effect.sync(() => {
          throw new Error("boom in send")
        }) :
        connection.send(message)
  })
  const transport = Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (inner) => ({ connections: Stream.map(inner.connections, dying) }))
  )
  const logger = Logger.make(({ cause, message }) => {
    logged.push(`${String(message)} ${Cause.pretty(cause)}`)
  })
  const layer = McpClient.layer({ clientInfo, prefetch: false }).pipe(
    Layer.provide(transport),
    Layer.provideMerge(TestServer.layer({ handlers: { "tools/call": () => Effect.succeed(textResult("done")) } })),
    Layer.provide(Logger.replace(Logger.defaultLogger, logger))
  )
  return { logged, layer }
}

describe("a transport whose send dies", () => {
  for (const atOnce of [true, false]) {
    const subject = dyingSend(atOnce)
    it.effect(
      `fails the request at once with a typed TransportError and logs the defect (${
        atOnce ? "sent inline" : "sent from a fiber of its own"
      })`,
      () =>
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          yield* client.initialized
          // the clock never moves: only the fix ends the call (else it waits for its 60 s timeout)
          const fiber = yield* Effect.fork(client.callTool({ name: "x" }))
          yield* eventually(Effect.sync(() => fiber.unsafePoll() !== null))
          const exit = yield* Fiber.await(fiber)
          expect(Exit.isFailure(exit) && Cause.isFailType(exit.cause)).toBe(true)
          const error = yield* Effect.flip(exit)
          expect(error).toBeInstanceOf(McpError.TransportError)
          expect(error).toMatchObject({ _tag: "TransportError", reason: "Write", phase: "send" })
          expect(subject.logged.some((line) => line.includes("tools/call died") && line.includes("boom in send"))).toBe(
            true
          )
          // the session is still usable, and nothing is left pending
          expect(yield* client.ping).toBeUndefined()
          expect((yield* client.session.stats).pending).toBe(0)
        }).pipe(Effect.provide(subject.layer))
    )
  }
})
