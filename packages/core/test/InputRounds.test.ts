import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as ClientSession from "../src/ClientSession.js"
import * as Elicitation from "../src/Elicitation.js"
import * as InputRounds from "../src/internal/era/inputRounds.js"
import * as Handlers from "../src/internal/handlers.js"
import type * as McpError from "../src/McpError.js"
import * as Roots from "../src/Roots.js"

const elicitForm = (message: string) => ({
  method: "elicitation/create",
  params: {
    message,
    requestedSchema: { type: "object", properties: { confirmed: { type: "boolean", default: true } } }
  }
})

/** A fake server: answers each round from the script and records the answers each round carried. */
const scripted = (results: ReadonlyArray<unknown>) => {
  const rounds: Array<InputRounds.Answers | undefined> = []
  const send = (answers: InputRounds.Answers | undefined): Effect.Effect<unknown, McpError.McpClientError> =>
    Effect.sync(() => {
      rounds.push(answers)
      return results[rounds.length - 1]
    })
  return { rounds, send }
}

/** The request as the session makes it: the first round, then its input rounds. */
const runRounds = (
  method: string,
  send: (answers: InputRounds.Answers | undefined) => Effect.Effect<unknown, McpError.McpClientError>,
  handlers: ReadonlyMap<string, ClientSession.ServerRequestHandler>
) => Effect.flatMap(send(undefined), (first) => InputRounds.run(method, first, send, handlers))

const handlersOf = <E>(layer: Layer.Layer<never, E> | Layer.Layer<Elicitation.Elicitation | Roots.Roots, E>) =>
  Effect.map(
    Effect.provide(Handlers.fromContext, layer),
    (fromContext) => new Map(Object.entries(fromContext.handlers))
  )

const accepting = Elicitation.layerAcceptDefaults

describe("multi-round-trip requests (input_required)", () => {
  it.effect("answers the input requests with the Elicitation layer and echoes requestState byte for byte", () =>
    Effect.gen(function*() {
      // a state whose bytes a JSON round trip would change (key order, spacing, escapes)
      const state = "{\"b\":1,  \"a\":\"\\u00e9\"}"
      const { rounds, send } = scripted([
        { resultType: "input_required", inputRequests: { confirm: elicitForm("sure?") }, requestState: state },
        { resultType: "complete", content: [{ type: "text", text: "done" }] }
      ])
      const result = yield* runRounds("tools/call", send, yield* handlersOf(accepting))
      expect(result).toEqual({ resultType: "complete", content: [{ type: "text", text: "done" }] })
      expect(rounds).toEqual([
        undefined,
        { inputResponses: { confirm: { action: "accept", content: { confirmed: true } } }, requestState: state }
      ])
      expect(rounds[1]!.requestState).toBe(state)
    }))

  it.effect("without a requestState from the server, the retry carries none", () =>
    Effect.gen(function*() {
      const { rounds, send } = scripted([
        { resultType: "input_required", inputRequests: { confirm: elicitForm("sure?") } },
        { content: [] }
      ])
      yield* runRounds("tools/call", send, yield* handlersOf(accepting))
      expect(rounds[1]).toEqual({ inputResponses: { confirm: { action: "accept", content: { confirmed: true } } } })
      expect("requestState" in rounds[1]!).toBe(false)
    }))

  it.effect("a result without resultType is complete: no retry", () =>
    Effect.gen(function*() {
      const { rounds, send } = scripted([{ content: [{ type: "text", text: "old server" }] }])
      expect(yield* runRounds("tools/call", send, new Map())).toEqual({
        content: [{ type: "text", text: "old server" }]
      })
      expect(rounds).toEqual([undefined])
    }))

  it.effect("several rounds, several kinds of input (roots and elicitation), in the server's order", () =>
    Effect.gen(function*() {
      const { rounds, send } = scripted([
        { resultType: "input_required", inputRequests: { where: { method: "roots/list" } }, requestState: "s1" },
        { resultType: "input_required", inputRequests: { ok: elicitForm("go?") }, requestState: "s2" },
        { resultType: "complete", messages: [] }
      ])
      const layer = Layer.merge(accepting, Roots.layer([{ uri: "file:///work", name: "work" }]))
      yield* runRounds("prompts/get", send, yield* handlersOf(layer))
      expect(rounds).toEqual([
        undefined,
        { inputResponses: { where: { roots: [{ uri: "file:///work", name: "work" }] } }, requestState: "s1" },
        { inputResponses: { ok: { action: "accept", content: { confirmed: true } } }, requestState: "s2" }
      ])
    }))

  it.effect("input the client has no handler for fails the request at once with a ProtocolError", () =>
    Effect.gen(function*() {
      const { rounds, send } = scripted([
        { resultType: "input_required", inputRequests: { ask: { method: "sampling/createMessage", params: {} } } }
      ])
      const error = yield* Effect.flip(runRounds("tools/call", send, new Map()))
      expect(error).toMatchObject({ _tag: "ProtocolError", method: "tools/call" })
      expect(error.message).toContain("sampling/createMessage")
      expect(rounds.length).toBe(1)
    }))

  it.effect("a malformed input_required result is a DecodeError", () =>
    Effect.gen(function*() {
      const { send } = scripted([{ resultType: "input_required", inputRequests: { x: { params: {} } } }])
      const error = yield* Effect.flip(runRounds("tools/call", send, new Map()))
      expect(error).toMatchObject({ _tag: "DecodeError", method: "tools/call" })
    }))

  it.effect("a server that never stops asking is given up after maxRounds", () =>
    Effect.gen(function*() {
      const ask = { resultType: "input_required", requestState: "again" }
      const { rounds, send } = scripted(Array.from({ length: 100 }, () => ask))
      const error = yield* Effect.flip(runRounds("tools/call", send, new Map()))
      expect(error).toMatchObject({ _tag: "ProtocolError", method: "tools/call" })
      expect(rounds.length).toBe(InputRounds.maxRounds + 1)
    }))

  it.effect("interrupting while the user answers sends nothing more", () =>
    Effect.gen(function*() {
      const asked = yield* Deferred.make<void>()
      const slowUser = Elicitation.layer(() => Effect.zipRight(Deferred.succeed(asked, undefined), Effect.never))
      const { rounds, send } = scripted([
        { resultType: "input_required", inputRequests: { confirm: elicitForm("sure?") }, requestState: "s" }
      ])
      const fiber = yield* Effect.fork(runRounds("tools/call", send, yield* handlersOf(slowUser)))
      yield* Deferred.await(asked)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(rounds).toEqual([undefined])
    }))
})
