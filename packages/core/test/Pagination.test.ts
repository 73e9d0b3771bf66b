import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import { clientLayer, receivedWith } from "./utils.js"

/** A server answering every page of `tools/list` with `size` fresh tools and a fresh cursor, forever. */
const endless = (size: number, descriptionBytes: number) =>
  clientLayer({
    capabilities: { tools: {} },
    handlers: {
      "tools/list": ({ params }) =>
        Effect.sync(() => {
          const page = Number((params.cursor as string | undefined)?.slice(5) ?? 0)
          return {
            tools: Array.from({ length: size }, (_, i) => ({
              name: `t${page}_${i}`,
              description: `${page}:${i}:`.padEnd(descriptionBytes, "x"),
              inputSchema: { type: "object" }
            })),
            nextCursor: `page-${page + 1}`
          }
        })
    }
  })

const listTools = Effect.flatMap(McpClient.McpClient, (client) => Effect.flip(client.listTools))

describe("pagination", () => {
  it.effect(
    "a server sending fresh cursors and big pages forever gets TooLarge, with memory bounded",
    () =>
      Effect.gen(function*() {
        const before = process.memoryUsage().heapUsed
        const error = yield* listTools.pipe(Effect.timeout("20 seconds"))
        const grown = process.memoryUsage().heapUsed - before
        expect(error).toBeInstanceOf(McpError.DecodeError)
        expect(error).toMatchObject({ reason: "TooLarge" })
        expect(error.message).toMatch(/bytes of pages/)
        // 32 MiB of pages, at most: far from the gigabytes ten thousand such pages would hold
        expect(grown).toBeLessThan(256 * 1024 * 1024)
        expect((yield* receivedWith("tools/list")).length).toBeLessThan(100)
      }).pipe(Effect.provide(endless(100, 4096))),
    { timeout: 30_000 }
  )

  it.effect("many small pages stop at the item cap", () =>
    Effect.gen(function*() {
      const error = yield* listTools.pipe(Effect.timeout("20 seconds"))
      expect(error).toMatchObject({ _tag: "DecodeError", reason: "TooLarge" })
      expect(error.message).toMatch(/items/)
      expect((yield* receivedWith("tools/list")).length).toBeLessThanOrEqual(21)
    }).pipe(Effect.provide(endless(5000, 1))), { timeout: 30_000 })

  it.effect("a repeated cursor is an error that never quotes the cursor", () =>
    Effect.gen(function*() {
      const error = yield* listTools
      expect(error).toMatchObject({ _tag: "DecodeError" })
      expect(error.message).not.toMatch(/secret-cursor/)
    }).pipe(Effect.provide(clientLayer({
      capabilities: { tools: {} },
      handlers: { "tools/list": () => Effect.succeed({ tools: [], nextCursor: "secret-cursor" }) }
    }))))
})
