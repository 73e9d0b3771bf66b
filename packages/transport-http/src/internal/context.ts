import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import type * as Effect from "effect/Effect"
import type { Config } from "./config.js"
import type { Execute } from "./exchange.js"
import type { Era } from "./modern.js"

/**
 * Mutable state of one connection (one MCP session).
 *
 * @internal
 */
export interface State {
  sessionId: string | undefined
  /** set by the session's hand-off (`Connection.negotiated`) or a resumed session */
  protocolVersion: string | undefined
  /** set once the connection failed; later sends fail with it */
  failure: McpTransport.ConnectionError | undefined
  /** set when this connection speaks the 2024-11-05 HTTP+SSE transport */
  legacyEndpoint: URL | undefined
  /** set once the GET stream was opened (`Connection.ready`, or resuming) */
  getStreamStarted: boolean
  /** set when the session negotiated protocol 2026-07-28 (`Connection.negotiated` names the era) */
  modern: boolean
}

/**
 * What the stream readers need from their connection.
 *
 * @internal
 */
export interface Ctx {
  readonly config: Config
  readonly execute: Execute
  readonly state: State
  /** what the connection knows of protocol 2026-07-28 */
  readonly era: Era
  readonly deliver: (items: ReadonlyArray<JsonRpc.Incoming>) => Effect.Effect<void>
  /**
   * `deliver` when it need not wait (called from the body's own callbacks):
   * `false` when nothing was taken and `deliver` must be used.
   */
  readonly deliverNow: (items: ReadonlyArray<JsonRpc.Incoming>) => boolean
  /** ends the connection: its inbound buffer ends with the error */
  readonly fail: (error: McpTransport.ConnectionError) => Effect.Effect<void>
  /** the server forgot the session (it answered `status`: 404, or 400 saying so): drops the id and ends the connection */
  readonly expire: (what: string, status: number) => Effect.Effect<McpError.SessionExpired>
  /** `MCP-Session-Id` and `MCP-Protocol-Version` when known */
  readonly sessionHeaders: () => Record<string, string>
  /** reports what a later resume of the session needs (see `McpTransport.Resumption`) */
  readonly resumable: (update: McpTransport.Resumable) => Effect.Effect<void>
  /** runs a background fiber that lives as long as the connection; one with a key is what `Connection.cancel` of that request id stops */
  readonly fork: (effect: Effect.Effect<void>, key?: JsonRpc.RequestId) => Effect.Effect<void>
}
