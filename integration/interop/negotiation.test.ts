// Era negotiation against real servers when the eras do not meet: a typed error at once, never a
// hang; and `ping`, which 2026-07-28 lacks, is that era's liveness check (`server/discover`).
import { expect, layer } from "@effect/vitest"
import { McpClient, McpSchema, type McpTransport } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fixture from "./fixtures/launch.js"

const modernOnly: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["modern"] }
const legacyOnly: Fixture.Fixture = { script: "sdk-v2-server.mjs", args: ["legacy"] }

const client = <E>(era: "legacy" | "modern" | "auto", transport: Layer.Layer<McpTransport.McpTransport, E>) =>
  McpClient.layer({ clientInfo: { name: "interop-negotiation", version: "1.0.0" }, era }).pipe(Layer.provide(transport))

for (const [name, transport] of [["stdio", Fixture.stdio], ["Streamable HTTP", Fixture.http]] as const) {
  layer(client("legacy", transport(modernOnly)), { timeout: 60_000, excludeTestServices: true })(
    `pinned to 2025 against SDK v2 modern-only over ${name}`,
    (it) => {
      it.effect("the connection fails with the server's -32022, naming the version it supports", () =>
        Effect.gen(function*() {
          const mcp = yield* McpClient.McpClient
          const error = yield* Effect.flip(mcp.initialized)
          expect(error).toMatchObject({ _tag: "ProtocolError", code: -32022 })
          expect(error._tag === "ProtocolError" && error.data).toMatchObject({
            supported: [McpSchema.MODERN_PROTOCOL_VERSION]
          })
          expect(yield* Effect.flip(mcp.listTools)).toMatchObject({ _tag: "ProtocolError", code: -32022 })
        }))
    }
  )

  layer(client("auto", transport(modernOnly)), { timeout: 60_000, excludeTestServices: true })(
    `2026 methods only against SDK v2 modern-only over ${name}`,
    (it) => {
      it.effect("ping is server/discover with the era's _meta, which the server answers; setLoggingLevel needs its logging capability", () =>
        Effect.gen(function*() {
          const mcp = yield* McpClient.McpClient
          expect((yield* mcp.initialized).protocolVersion).toBe(McpSchema.MODERN_PROTOCOL_VERSION)
          yield* mcp.ping
          // this server declares no logging: the level has nowhere to go, in either era
          expect(yield* Effect.flip(mcp.setLoggingLevel("info"))).toMatchObject({
            _tag: "UnsupportedCapability",
            capability: "logging",
            method: "logging/setLevel"
          })
        }))
    }
  )

  layer(client("modern", transport(legacyOnly)), { timeout: 60_000, excludeTestServices: true })(
    `pinned to 2026 against SDK v2 legacy-only over ${name}`,
    (it) => {
      it.effect("the server/discover probe fails, and so does the connection, with a typed ProtocolError", () =>
        Effect.gen(function*() {
          const mcp = yield* McpClient.McpClient
          const error = yield* Effect.flip(mcp.initialized)
          expect(error).toMatchObject({ _tag: "ProtocolError", method: "server/discover" })
          expect(error.message).toContain("does not speak the modern era")
        }))
    }
  )
}
