/**
 * The smallest useful browser app, for the bundle-size line: connect over
 * Streamable HTTP with `FetchHttpClient`, list the tools, call one.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { McpClient } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const Client = McpClient.layer({ clientInfo: { name: "minimal", version: "1.0.0" } }).pipe(
  Layer.provide(HttpTransport.layer({ url: "https://mcp.example.com/mcp" })),
  Layer.provide(FetchHttpClient.layer)
)

export const main = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools
  return yield* client.callTool({ name: tools[0]!.name, arguments: {} })
}).pipe(Effect.provide(Client), Effect.runPromise)
