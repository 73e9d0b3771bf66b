import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as McpClient from "../src/McpClient.js"
import type * as McpSchema from "../src/McpSchema.js"
import type * as TestServer from "../src/TestServer.js"
import { clientLayer, eventually, receivedWith, textResult } from "./utils.js"

const n = 1000

/** Echoes each call's `i` once `gate` is open; `i` is checked against the caller's own. */
const gatedEcho = (gate: Deferred.Deferred<void>): TestServer.Options => ({
  handlers: {
    "tools/list": () =>
      Effect.succeed({
        tools: [{ name: "echo", inputSchema: { type: "object" }, outputSchema: { type: "object", required: ["i"] } }]
      }),
    "tools/call": ({ params }) => {
      const i = (params.arguments as { readonly i?: number } | undefined)?.i
      return Effect.as(Deferred.await(gate), { ...textResult(String(i)), structuredContent: { i } })
    }
  }
})

const call = (client: McpClient.Service, i: number) => client.callTool({ name: "echo", arguments: { i } })

describe("many calls in flight at once", () => {
  it.live(`${n} concurrent calls each get their own answer, and none is left pending`, () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      return yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools
        const fiber = yield* Effect.fork(
          Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => call(client, i), { concurrency: "unbounded" })
        )
        yield* eventually(Effect.map(receivedWith("tools/call"), (calls) => calls.length === n))
        expect((yield* client.session.stats).pending).toBe(n)
        yield* Deferred.succeed(gate, undefined)
        const results = yield* Fiber.join(fiber)
        results.forEach((result, i) => {
          expect(result.structuredContent).toEqual({ i })
          expect(result.content).toEqual([{ type: "text", text: String(i) }])
        })
        expect((yield* client.session.stats).pending).toBe(0)
      }).pipe(Effect.provide(clientLayer(gatedEcho(gate))))
    }))

  it.live("callers interrupted while their answers arrive: each has its own answer or was interrupted, and none is left pending", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      return yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools
        const fibers = yield* Effect.forEach(
          Array.from({ length: n }, (_, i) => i),
          (i) => Effect.fork(call(client, i))
        )
        yield* eventually(Effect.map(receivedWith("tools/call"), (calls) => calls.length === n))
        // the answers are released while every other caller is being interrupted
        yield* Deferred.succeed(gate, undefined)
        yield* Effect.forEach(fibers, (fiber, i) => i % 2 === 0 ? Fiber.interruptFork(fiber) : Effect.void, {
          discard: true
        })
        const exits = yield* Effect.forEach(fibers, Fiber.await)
        let interrupted = 0
        exits.forEach((exit, i) => {
          if (Exit.isSuccess(exit)) {
            expect(exit.value.structuredContent).toEqual({ i })
          } else {
            expect(i % 2).toBe(0)
            expect(Exit.isInterrupted(exit)).toBe(true)
            interrupted++
          }
        })
        expect((yield* client.session.stats).pending).toBe(0)
        // only callers that were interrupted before their answer was in told the server, once each
        const sent = new Map(
          (yield* receivedWith("tools/call")).map((
            m
          ) => [(m as { id: unknown }).id, (m.params as McpSchema.CallToolRequestParams).arguments?.i])
        )
        const cancelled = yield* receivedWith("notifications/cancelled")
        const ids = cancelled.map((m) => (m.params as McpSchema.CancelledNotificationParams).requestId)
        expect(new Set(ids).size).toBe(ids.length)
        expect(ids.length).toBeLessThanOrEqual(interrupted)
        for (const id of ids) expect(Exit.isInterrupted(exits[sent.get(id) as number])).toBe(true)
      }).pipe(Effect.provide(clientLayer(gatedEcho(gate))))
    }))
})
