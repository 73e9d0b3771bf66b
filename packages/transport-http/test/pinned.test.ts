// HttpTransport.layerWith: a transport made with one era's part does that era's HTTP only.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/core/McpClient"
import type * as ProtocolEra from "@mcp-effect/core/ProtocolEra"
import * as ProtocolEra2025 from "@mcp-effect/core/ProtocolEra2025"
import * as ProtocolEra2026 from "@mcp-effect/core/ProtocolEra2026"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as HttpEra2025 from "../src/HttpEra2025.js"
import * as HttpEra2026 from "../src/HttpEra2026.js"
import * as HttpTransport from "../src/HttpTransport.js"
import { resource } from "./fixtures/harness.js"
import { startSdkServer } from "./fixtures/sdkServer.js"
import { startSdkV2Server } from "./fixtures/sdkV2Server.js"

const once = { schedule: Schedule.recurs(0) }

const client = (
  eras: { readonly client: ReadonlyArray<ProtocolEra.ProtocolEra> },
  transportEras: ReadonlyArray<HttpTransport.Era>,
  url: string
) =>
  McpClient.makeWith(eras.client, { clientInfo: { name: "http-pinned", version: "1.0.0" }, prefetch: false }).pipe(
    Effect.provide(
      HttpTransport.layerWith(transportEras, { url, reconnect: once }).pipe(Layer.provide(FetchHttpClient.layer))
    )
  )

describe("HttpTransport.layerWith", () => {
  it.scopedLive("with the 2025 era's part: a 2024-11-05 HTTP+SSE server is reached through the fallback", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("legacy"))
      const mcp = yield* client({ client: [ProtocolEra2025.era] }, [HttpEra2025.era], server.url)
      expect((yield* mcp.listTools).map((t) => t.name)).toContain("echo")
    }))

  it.scopedLive("without it: no fallback, the refused initialize is why the client gives up", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkServer("legacy"))
      const mcp = yield* client({ client: [ProtocolEra2025.era] }, [HttpEra2026.era], server.url)
      const error = yield* Effect.flip(mcp.initialized)
      expect(error).toMatchObject({
        _tag: "TransportError",
        cause: { _tag: "TransportError", reason: "Http", status: 405 }
      })
      expect(server.requests.some((r) => r.method === "GET")).toBe(false)
    }))

  it.scopedLive("without the 2026-07-28 era's part: a message of that era fails unsent with a typed options error", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startSdkV2Server())
      const mcp = yield* client({ client: [ProtocolEra2026.era] }, [HttpEra2025.era], server.url)
      const error = yield* Effect.flip(mcp.initialized)
      expect(error).toMatchObject({ _tag: "TransportError", cause: { _tag: "TransportError", phase: "options" } })
      expect(error.message).toContain("made without HttpEra2026.era")
      expect(server.requests).toEqual([])
    }))
})
