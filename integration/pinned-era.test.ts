// A client pinned to one protocol era at bundle time (`McpClient.layerWith` + `HttpTransport.layerWith`
// with one era's values, as `examples/installed-browser-legacy.ts` / `-modern.ts` are) against the official
// SDK v2 server over real loopback HTTP: it works with a server of its era, and fails at once with a typed
// error that names both sides' versions against a server of only the other era.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/core/McpClient"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as ProtocolEra from "@mcp-effect/core/ProtocolEra"
import * as ProtocolEra2025 from "@mcp-effect/core/ProtocolEra2025"
import * as ProtocolEra2026 from "@mcp-effect/core/ProtocolEra2026"
import * as HttpEra2025 from "@mcp-effect/transport-http/HttpEra2025"
import * as HttpEra2026 from "@mcp-effect/transport-http/HttpEra2026"
import * as HttpTransport from "@mcp-effect/transport-http/HttpTransport"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { startHttp } from "./interop/fixtures/launch.js"

const MODERN = McpSchema.MODERN_PROTOCOL_VERSION
const LEGACY = McpSchema.LATEST_PROTOCOL_VERSION

const pins = {
  "2025-11-25": { client: ProtocolEra2025.era, transport: HttpEra2025.era },
  "2026-07-28": { client: ProtocolEra2026.era, transport: HttpEra2026.era }
} satisfies Record<string, { client: ProtocolEra.ProtocolEra; transport: HttpTransport.Era }>

/** A client of one era, to the SDK v2 server started in `mode` (stopped with the scope). */
const pinnedClient = (pin: keyof typeof pins, mode: "modern" | "legacy") =>
  Effect.gen(function*() {
    const server = yield* startHttp({ script: "sdk-v2-server.mjs", args: [mode] })
    return yield* McpClient.makeWith([pins[pin].client], {
      clientInfo: { name: "pinned-test", version: "1.0.0" },
      initializeTimeout: "10 seconds"
    }).pipe(
      Effect.provide(
        HttpTransport.layerWith([pins[pin].transport], { url: server.url }).pipe(Layer.provide(FetchHttpClient.layer))
      )
    )
  })

const text = (result: McpSchema.CallToolResult) =>
  result.content.flatMap((c) => c.type === "text" ? [c.text] : []).join("\n")

describe("a client pinned to one era over real HTTP (official SDK v2 server)", () => {
  it.scopedLive("pinned to 2026-07-28: lists and calls tools on a 2026-07-28 server", () =>
    Effect.gen(function*() {
      const client = yield* pinnedClient("2026-07-28", "modern")
      expect((yield* client.initialized).protocolVersion).toBe(MODERN)
      expect((yield* client.listTools).map((t) => t.name)).toContain("echo")
      expect(text(yield* client.callTool({ name: "echo", arguments: { text: "pinned" } }))).toBe("pinned")
      yield* client.ping
    }), 30_000)

  it.scopedLive("pinned to 2025-11-25: lists and calls tools on a 2025-11-25 server", () =>
    Effect.gen(function*() {
      const client = yield* pinnedClient("2025-11-25", "legacy")
      expect((yield* client.initialized).protocolVersion).toBe(LEGACY)
      expect((yield* client.listTools).map((t) => t.name)).toContain("echo")
      expect(text(yield* client.callTool({ name: "echo", arguments: { text: "pinned" } }))).toBe("pinned")
      yield* client.ping
    }), 30_000)

  it.scopedLive(
    "pinned to 2026-07-28: a 2025-only server is refused with a ProtocolError, without initialize",
    () =>
      Effect.gen(function*() {
        const client = yield* pinnedClient("2026-07-28", "legacy")
        const error = yield* Effect.flip(client.initialized)
        expect(error).toBeInstanceOf(McpError.ProtocolError)
        expect(error).toMatchObject({ _tag: "ProtocolError", method: "server/discover" })
        expect(error.message).toContain(`does not speak the modern era`)
        expect(error.message).toContain(`this session offers only ${MODERN}`)
      }),
    30_000
  )

  it.scopedLive(
    "pinned to 2025-11-25: a 2026-only server is refused with a ProtocolError naming both sides' versions",
    () =>
      Effect.gen(function*() {
        const client = yield* pinnedClient("2025-11-25", "modern")
        const error = yield* Effect.flip(client.initialized)
        expect(error).toMatchObject({
          _tag: "ProtocolError",
          code: McpError.ErrorCode.UnsupportedProtocolVersion,
          method: "initialize"
        })
        expect(error.message).toContain(`this client offered ${LEGACY}`)
        expect(error.message).toContain(`the server supports ${MODERN}`)
      }),
    30_000
  )
})
