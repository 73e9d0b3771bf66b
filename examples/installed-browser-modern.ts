/**
 * The minimal browser client of `installed-browser.ts`, pinned to the 2026 protocol era at bundle
 * time: `McpClient.layerWith` gets only `ProtocolEra2026.era` and `HttpTransport.layerWith` only `HttpEra2026.era`, so the
 * bundle holds none of the other era's code. Measured by `browser/bundle.ts` (`measurePinned`).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as McpClient from "@mcp-effect/core/McpClient"
import * as ProtocolEra2026 from "@mcp-effect/core/ProtocolEra2026"
import * as HttpEra2026 from "@mcp-effect/transport-http/HttpEra2026"
import * as HttpTransport from "@mcp-effect/transport-http/HttpTransport"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const run = (url: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = yield* client.listTools
    return yield* client.callTool({ name: tools[0]?.name ?? "echo", arguments: {} })
  }).pipe(
    Effect.provide(
      McpClient.layerWith([ProtocolEra2026.era], { clientInfo: { name: "browser-app", version: "1.0.0" } }).pipe(
        Layer.provide(HttpTransport.layerWith([HttpEra2026.era], { url })),
        Layer.provide(FetchHttpClient.layer)
      )
    ),
    Effect.runPromise
  )
