import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Sse from "../src/internal/sse.js"

/** Feeds `text` split at `cuts` (positions, any order) and collects the items. */
const parse = (text: string, cuts: ReadonlyArray<number>, max: number): Array<Sse.Item> => {
  const reader = Sse.makeReader(max)
  const items: Array<Sse.Item> = []
  let start = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= start || cut >= text.length) continue
    for (const item of reader.feed(text.slice(start, cut))) items.push(item)
    start = cut
  }
  for (const item of reader.feed(text.slice(start))) items.push(item)
  return items
}

const decodeBytes = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<string> => {
  const decoder = new TextDecoder()
  const out: Array<string> = []
  let start = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= start || cut >= bytes.length) continue
    out.push(decoder.decode(bytes.subarray(start, cut), { stream: true }))
    start = cut
  }
  out.push(decoder.decode(bytes.subarray(start)))
  return out
}

const field = fc.constantFrom("data", "event", "id", "retry", "", ":", "dat", "data:", " data")
const value = fc.string({ unit: fc.constantFrom("a", "b", " ", ":", "\u0000", "\uFEFF", "é", "1", "{", "\"") })
const eol = fc.constantFrom("\n", "\r", "\r\n")
const line = fc.tuple(field, fc.constantFrom(":", ": ", ""), value, eol).map(([f, c, v, e]) => `${f}${c}${v}${e}`)
const stream = fc.array(fc.oneof(line, eol), { maxLength: 40 }).map((parts) => parts.join(""))

/** Random edits of a valid stream: delete, duplicate or replace a span. */
const mutated = fc.tuple(stream, fc.array(fc.tuple(fc.nat(), fc.nat(8), fc.string({ maxLength: 4 })), { maxLength: 6 }))
  .map(([text, edits]) =>
    edits.reduce((acc, [at, length, insert]) => {
      const i = acc.length === 0 ? 0 : at % acc.length
      return acc.slice(0, i) + insert + acc.slice(i + length)
    }, text)
  )

const cuts = fc.array(fc.nat(400), { maxLength: 12 })

describe("SSE reader fuzz (fast-check, seeded)", () => {
  it("random bytes in random chunks: never throws, chunking does not change the result", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        cuts,
        cuts,
        fc.integer({ min: 1, max: 64 }),
        (bytes, c1, c2, max) => {
          const chunks = decodeBytes(bytes, c1)
          const whole = chunks.join("")
          const reader = Sse.makeReader(max)
          const items = chunks.flatMap((chunk) => reader.feed(chunk))
          expect(items).toEqual(parse(whole, [], max))
          expect(parse(whole, c2, max)).toEqual(items)
        }
      ),
      { seed: 7, numRuns: 500 }
    )
  })

  it("valid and mutated streams: never throws, chunk-invariant, sizes bounded", () => {
    fc.assert(
      fc.property(fc.oneof(stream, mutated), cuts, fc.integer({ min: 4, max: 200 }), (text, c, max) => {
        const items = parse(text, c, max)
        expect(items).toEqual(parse(text, [], max))
        for (const item of items) {
          if (item._tag === "Event") expect(item.data.length).toBeLessThanOrEqual(max)
          if (item._tag === "Retry") expect(Number.isInteger(item.millis)).toBe(true)
        }
      }),
      { seed: 11, numRuns: 1000 }
    )
  })
})
