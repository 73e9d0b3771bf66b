import type * as Socket from "@effect/platform/Socket"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import * as WS from "ws"
import { resolveHeaders } from "./config.js"

/** @internal */
export const makeConstructor = (options?: {
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  readonly maxMessageBytes?: number | undefined
}): Effect.Effect<Context.Tag.Service<typeof Socket.WebSocketConstructor>, McpError.TransportError> =>
  Effect.map(resolveHeaders(options?.headers), (headers) => {
    const maxPayload = options?.maxMessageBytes ?? JsonRpc.defaultMaxMessageBytes
    return (url: string, protocols?: string | Array<string>) =>
      new WS.WebSocket(url, protocols, { headers, maxPayload }) as unknown as globalThis.WebSocket
  })
