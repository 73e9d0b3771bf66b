/**
 * The browser entry the pack check bundles from the installed tarballs: a minimal client over
 * Streamable HTTP with the platform's fetch client (connect, list tools, call one).
 */
import { FetchHttpClient } from "@effect/platform"
import { McpClient } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import { Effect, Layer } from "effect"

export const run = (url: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = yield* client.listTools
    return yield* client.callTool({ name: tools[0]?.name ?? "echo", arguments: {} })
  }).pipe(
    Effect.provide(
      McpClient.layer({ clientInfo: { name: "browser-app", version: "1.0.0" } }).pipe(
        Layer.provide(HttpTransport.layer({ url })),
        Layer.provide(FetchHttpClient.layer)
      )
    ),
    Effect.runPromise
  )
