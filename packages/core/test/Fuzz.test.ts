/**
 * Random and mutated frames through the codec and a live session: nothing
 * throws, no fiber of the session dies, and the session still answers.
 * Seeded and bounded, so a failure replays exactly.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Stream from "effect/Stream"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpClient from "../src/McpClient.js"
import * as TestServer from "../src/TestServer.js"
import { clientLayer } from "./utils.js"

const seed = 20_261_122

const methods = [
  "ping",
  "roots/list",
  "sampling/createMessage",
  "elicitation/create",
  "notifications/message",
  "notifications/progress",
  "notifications/cancelled",
  "notifications/tools/list_changed",
  "notifications/resources/updated",
  "toString",
  "constructor",
  "__proto__",
  "hasOwnProperty",
  "valueOf"
]

const validFrames = [
  JsonRpc.request(1, "sampling/createMessage", { messages: [], maxTokens: 1 }),
  JsonRpc.request("s-1", "roots/list"),
  JsonRpc.notification("notifications/message", { level: "info", data: { a: [1, 2] } }),
  JsonRpc.notification("notifications/progress", { progressToken: 1, progress: 1, total: 2 }),
  JsonRpc.notification("notifications/cancelled", { requestId: 1 }),
  JsonRpc.success(1, { content: [{ type: "text", text: "x" }] }),
  JsonRpc.failure(1, { code: -32000, message: "m", data: { d: 1 } }),
  JsonRpc.failure(null, { code: -32700, message: "parse error" })
].map(JsonRpc.encode)

/** A valid frame with a few characters deleted, replaced or inserted. */
const mutated = FastCheck.tuple(
  FastCheck.constantFrom(...validFrames),
  FastCheck.array(FastCheck.tuple(FastCheck.nat(), FastCheck.nat(3), FastCheck.string({ maxLength: 3 })), {
    maxLength: 4
  })
).map(([frame, edits]) =>
  edits.reduce((text, [at, remove, insert]) => {
    const i = at % (text.length + 1)
    return text.slice(0, i) + insert + text.slice(i + remove)
  }, frame)
)

const id = FastCheck.oneof(
  FastCheck.integer({ min: -3, max: 1000 }),
  FastCheck.string({ maxLength: 4 }),
  FastCheck.constant(null),
  FastCheck.double()
)

/** Envelopes with any method, id and params, valid or not. */
const structured = FastCheck.record(
  {
    jsonrpc: FastCheck.oneof(FastCheck.constant("2.0"), FastCheck.jsonValue()),
    id,
    method: FastCheck.oneof(FastCheck.constantFrom(...methods), FastCheck.string({ maxLength: 8 })),
    params: FastCheck.oneof(
      FastCheck.dictionary(FastCheck.constantFrom(...methods, "a"), FastCheck.jsonValue()),
      FastCheck.jsonValue()
    ),
    result: FastCheck.jsonValue(),
    error: FastCheck.jsonValue()
  },
  { requiredKeys: [] }
).map((value) => JSON.stringify(value))

/** Nesting deep enough to break a recursive walk. */
const deep = FastCheck.tuple(
  FastCheck.integer({ min: 1, max: 6000 }),
  FastCheck.constantFrom("[", "{\"a\":"),
  FastCheck.constantFrom(["{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":", "}"], [
    "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":",
    "}"
  ], ["", ""])
).map(([levels, open, [before, after]]) => {
  const close = open === "[" ? "]" : "}"
  return `${before}${open.repeat(levels)}${open === "[" ? "" : "1"}${close.repeat(levels)}${after}`
})

const frames = FastCheck.oneof(
  FastCheck.string({ maxLength: 40 }),
  FastCheck.json(),
  mutated,
  structured,
  deep,
  FastCheck.array(structured, { maxLength: 3 }).map((batch) => `[${batch.join(",")}]`)
)

describe("fuzz", () => {
  it("JsonRpc.decode is total on random and mutated frames", () => {
    FastCheck.assert(
      FastCheck.property(frames, (text) => {
        const items = JsonRpc.decode(text)
        expect(items.length).toBeGreaterThan(0)
        for (const item of items) {
          if (JsonRpc.isMalformed(item)) expect(item.error._tag).toBe("DecodeError")
          else expect(typeof item).toBe("object")
        }
      }),
      { seed, numRuns: 1000 }
    )
  })

  it.effect("a live session takes random frames and still answers", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* client.initialized
      for (const text of FastCheck.sample(frames, { seed, numRuns: 400 })) {
        for (const incoming of JsonRpc.decode(text)) yield* test.sendRaw(incoming)
      }
      // the same connection still works both ways, and the worker still delivers notifications
      expect(yield* test.request("ping")).toMatchObject({ result: {} })
      yield* client.ping
      const logs = yield* client.subscribeLogMessages
      yield* test.notify("notifications/message", { level: "info", data: "after" })
      expect([...(yield* Stream.runCollect(Stream.take(logs, 1)))]).toEqual([{ level: "info", data: "after" }])
      expect(yield* test.connections).toBe(1)
      expect((yield* client.state.get)._tag).toBe("Ready")
    }).pipe(
      Effect.scoped,
      Effect.provide(clientLayer({ capabilities: { tools: { listChanged: true }, logging: {} } }))
    ))
})
