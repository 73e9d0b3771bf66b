import { describe, expect, it } from "@effect/vitest"
import * as Sse from "../src/internal/sse.js"

describe("SSE reader", () => {
  it("parses events across chunk boundaries, with ids and retry", () => {
    const reader = Sse.makeReader(1024)
    expect(reader.feed("id: 1\nretry: 500\nda")).toEqual([{ _tag: "Retry", millis: 500 }])
    expect(reader.feed("ta: {\"a\":1}\n\n: comment\n\nevent: endpoint\ndata: /x\n\n")).toEqual([
      { _tag: "Event", event: "message", id: "1", data: "{\"a\":1}" },
      { _tag: "Event", event: "endpoint", id: undefined, data: "/x" }
    ])
  })

  it("reports an oversized event once, skips it, and reads the next one", () => {
    const reader = Sse.makeReader(100)
    expect(reader.feed("data: small\n\ndata: " + "x".repeat(150))).toEqual([
      { _tag: "Event", event: "message", id: undefined, data: "small" },
      { _tag: "TooLarge" }
    ])
    expect(reader.feed("x".repeat(500))).toEqual([])
    expect(reader.feed("xx\n")).toEqual([])
    expect(reader.feed("\nid: 2\ndata: after\n\n")).toEqual([
      { _tag: "Event", event: "message", id: "2", data: "after" }
    ])
  })
})
