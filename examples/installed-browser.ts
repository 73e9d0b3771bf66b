/**
 * The browser entry the pack check bundles from the installed tarballs: a minimal client over
 * Streamable HTTP with the platform's fetch client (connect, list tools, call one).
 * It imports Effect modules by path (`effect/Effect`), as the packages do: esbuild keeps every
 * export of a namespace re-exported by a barrel (`import { Effect } from "effect"`), about 14 KB
 * gzip here.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { McpClient } from "@mcp-effect/core"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

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
