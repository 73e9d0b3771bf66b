import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as JsonRpc from "../src/JsonRpc.js"

const malformed = (text: string, max?: number) => {
  const [first] = JsonRpc.decode(text, max)
  expect(JsonRpc.isMalformed(first)).toBe(true)
  return first as JsonRpc.Malformed
}

describe("JsonRpc.decode", () => {
  it("classifies the four kinds of message", () => {
    const [request, notification, success, failure] = [
      `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
      `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
      `{"jsonrpc":"2.0","id":"a","result":{}}`,
      `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
    ].map((text) => JsonRpc.decode(text)[0] as JsonRpc.Message)
    expect(JsonRpc.isRequest(request)).toBe(true)
    expect(JsonRpc.isNotification(notification)).toBe(true)
    expect(JsonRpc.isResponse(success) && !JsonRpc.isFailure(success)).toBe(true)
    expect(JsonRpc.isFailure(failure)).toBe(true)
  })

  it("reports bad JSON, bad envelopes and oversized input as typed values, never throwing", () => {
    expect(malformed("{nope").error.reason).toBe("Json")
    expect(malformed(`"text"`).error.reason).toBe("Envelope")
    expect(malformed(`{"jsonrpc":"1.0","id":3,"method":"x"}`)).toMatchObject({ id: 3 })
    expect(malformed(`{"jsonrpc":"2.0","id":1.5,"result":{}}`).error.reason).toBe("Envelope")
    expect(malformed(`{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":1,"message":"x"}}`)).toMatchObject({
      id: 2
    })
    expect(malformed(`{"jsonrpc":"2.0","id":4,"error":{"message":"no code"}}`)).toMatchObject({ id: 4 })
    expect(malformed(`{"jsonrpc":"2.0","id":5,"method":"x","params":[1]}`)).toMatchObject({ id: 5 })
    expect(malformed(`[]`).error.reason).toBe("Envelope")
    const big = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { blob: "é".repeat(100) } })
    expect(malformed(big, 150).error.reason).toBe("TooLarge")
    expect(JsonRpc.isMalformed(JsonRpc.decode(big, 300)[0])).toBe(false)
  })

  it("splits a batch into its messages", () => {
    const batch = JsonRpc.decode(`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}},3]`)
    expect(batch).toHaveLength(3)
    expect(JsonRpc.isMalformed(batch[2])).toBe(true)
  })

  const Message = Schema.Union(
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: Schema.Union(Schema.String, Schema.Int),
      method: Schema.String,
      params: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
    }),
    Schema.Struct({ jsonrpc: Schema.Literal("2.0"), method: Schema.String }),
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: Schema.Int,
      result: Schema.Record({ key: Schema.String, value: Schema.Number })
    }),
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: Schema.NullOr(Schema.String),
      error: Schema.Struct({ code: Schema.Int, message: Schema.String })
    })
  )

  it("round-trips every valid message (property)", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Message), (message) => {
        const text = JsonRpc.encode(message as JsonRpc.Message)
        const [decoded] = JsonRpc.decode(text)
        expect(JsonRpc.isMalformed(decoded)).toBe(false)
        // equal to the JSON value of the message (JSON has no -0, and parses "__proto__" as an own key)
        expect(decoded).toEqual(JSON.parse(text))
      }),
      { numRuns: 1000, seed: 20261122 }
    )
  })

  it("never throws on arbitrary text (property)", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.oneof(FastCheck.string(), FastCheck.json()), (text) => {
        for (const item of JsonRpc.decode(text)) {
          if (JsonRpc.isMalformed(item)) expect(item.error._tag).toBe("DecodeError")
        }
      }),
      { seed: 20261122 }
    )
  })

  describe("input nested too deeply to describe", () => {
    const levels = 5000
    const nested = (open: string, close: string, inner = "") => open.repeat(levels) + inner + close.repeat(levels)

    it("a deep batch is a DecodeError per member, not a RangeError", () => {
      const text = nested("[", "]")
      expect(text.length).toBeGreaterThan(9_000)
      const [item] = JsonRpc.decode(text)
      expect(JsonRpc.isMalformed(item) && item.error).toMatchObject({ _tag: "DecodeError", reason: "Envelope" })
    })

    it("a deep invalid message is a DecodeError that still names its request", () => {
      const text = `{"jsonrpc":"1.0","id":7,"result":${nested("{\"a\":", "}", "1")}}`
      const [item] = JsonRpc.decode(text)
      expect(item).toMatchObject({ _tag: "Malformed", id: 7, error: { _tag: "DecodeError", reason: "Envelope" } })
    })

    it("a deep valid message decodes", () => {
      const [item] = JsonRpc.decode(`{"jsonrpc":"2.0","id":1,"result":${nested("{\"a\":", "}", "1")}}`)
      expect(JsonRpc.isMalformed(item)).toBe(false)
    })
  })
})
