import { assert, describe, it } from "@effect/vitest"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as FastCheck from "effect/FastCheck"
import * as LineSplitter from "../src/internal/lineSplitter.js"
import * as Ndjson from "../src/internal/ndjson.js"

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)

const frames = (maxLineBytes: number, chunks: ReadonlyArray<Uint8Array>): Array<LineSplitter.Frame> => {
  const splitter = LineSplitter.make(maxLineBytes)
  const out: Array<LineSplitter.Frame> = []
  for (const chunk of chunks) splitter.push(chunk, out)
  splitter.end(out)
  return out
}

/** Messages as plain data: a malformed value becomes its reason, an overflow `{ overflow: true }`. */
const decodeAll = (maxBytes: number, chunks: ReadonlyArray<Uint8Array>): Array<unknown> => {
  const out: Array<unknown> = []
  for (const frame of frames(maxBytes, chunks)) {
    if (frame === LineSplitter.Overflow) {
      out.push({ overflow: true })
      continue
    }
    const messages: Array<JsonRpc.Incoming> = []
    Ndjson.decodeFrame(frame, maxBytes, messages)
    for (const value of messages) out.push(JsonRpc.isMalformed(value) ? { malformed: value.error.reason } : value)
  }
  return out
}

const cut = (data: Uint8Array, at: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(at)].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of points) {
    chunks.push(data.subarray(start, point))
    start = point
  }
  chunks.push(data.subarray(start))
  return chunks
}

describe("LineSplitter", () => {
  it("splits lines, drops the CR of CRLF and skips empty lines", () => {
    assert.deepStrictEqual(frames(100, [bytes("a\r\nb\n\n\r\nc\n")]), ["a", "b", "c"])
  })

  it("joins a line spread over many chunks", () => {
    assert.deepStrictEqual(frames(100, [bytes("he"), bytes("l"), bytes("lo\r"), bytes("\nworld\n")]), [
      "hello",
      "world"
    ])
  })

  it("joins a multi-byte character split between chunks", () => {
    const data = bytes("héllo ✓ 🎉\n")
    // every cut point, including the middle of each multi-byte sequence
    for (let at = 1; at < data.length; at++) {
      assert.deepStrictEqual(frames(100, cut(data, [at])), ["héllo ✓ 🎉"])
    }
  })

  it("keeps an unterminated last line", () => {
    assert.deepStrictEqual(frames(100, [bytes("a\nlast")]), ["a", "last"])
  })

  it("accepts a line of exactly the limit, with or without CR", () => {
    assert.deepStrictEqual(frames(4, [bytes("abcd\nabcd\r\n")]), ["abcd", "abcd"])
    assert.deepStrictEqual(frames(4, [bytes("ab"), bytes("cd"), bytes("\r"), bytes("\n")]), ["abcd"])
  })

  it("reports an overlong line once, in a single chunk", () => {
    assert.deepStrictEqual(frames(4, [bytes("abcde\nok\n")]), [LineSplitter.Overflow, "ok"])
  })

  it("detects an overlong line while it accumulates and discards it up to the newline", () => {
    const splitter = LineSplitter.make(8)
    const out: Array<LineSplitter.Frame> = []
    splitter.push(bytes("first\n0123"), out)
    splitter.push(bytes("45678"), out)
    // reported before its end arrives: nothing of it is kept
    assert.deepStrictEqual(out, ["first", LineSplitter.Overflow])
    for (let i = 0; i < 1000; i++) splitter.push(bytes("xxxxxxxxxx"), out)
    splitter.push(bytes("xx\nnext\n"), out)
    splitter.end(out)
    assert.deepStrictEqual(out, ["first", LineSplitter.Overflow, "next"])
  })

  it("decodes lines into messages; garbage and oversize become typed values", () => {
    const data = bytes(
      `{"jsonrpc":"2.0","id":1,"result":{}}\nnot json\n{"jsonrpc":"2.0","method":"x","params":{"d":"${
        "y".repeat(100)
      }"}}\n{"jsonrpc":"2.0","method":"after"}\n`
    )
    assert.deepStrictEqual(decodeAll(80, [data]), [
      { jsonrpc: "2.0", id: 1, result: {} },
      { malformed: "Json" },
      { overflow: true },
      { jsonrpc: "2.0", method: "after" }
    ])
  })

  it("any chunking of a message sequence yields the same messages", () => {
    const maxBytes = 120
    const data = bytes(
      [
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"héllo ✓ 🎉"}}`,
        `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\r`,
        ``,
        `garbage ✗`,
        `{"jsonrpc":"2.0","id":"a","result":{"text":"${"日本語".repeat(20)}"}}`,
        `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
        `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`,
        `{"jsonrpc":"2.0","id":3,"result":{"emoji":"🎉🎉🎉"}}`
      ].join("\n") + "\n"
    )
    const expected = decodeAll(maxBytes, [data])
    assert.strictEqual(expected.length, 8)
    assert.deepStrictEqual(expected[3], { overflow: true })
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.integer({ min: 0, max: data.length }), { maxLength: 60 }),
        (points) => {
          assert.deepStrictEqual(decodeAll(maxBytes, cut(data, points)), expected)
        }
      ),
      { numRuns: 500, seed: 20261122 }
    )
  })
})
