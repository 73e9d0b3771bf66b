/**
 * What the session and a protocol era's handshake agree on: what the
 * handshake may use of the connection it opens, and what it returns. The
 * handshakes themselves are the eras' (`era/initialize.ts`,
 * `era/handshake.ts`).
 */
import type * as Effect from "effect/Effect"
import type * as McpError from "../../McpError.js"
import type { Connection } from "../../McpTransport.js"
import type * as SessionModel from "../engine/sessionModel.js"
import { type Decorate, type Route, sendNotification } from "./pending.js"

/**
 * What a handshake may use of the connection it opens: requests bound to
 * that connection (they go through the pending table, with its timeouts),
 * notifications, and the transport's hand-off for the negotiated version.
 *
 * @internal
 */
export interface HandshakeContext {
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options: SessionModel.RequestOptions
  ) => Effect.Effect<unknown, McpError.McpClientError>
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void, McpError.McpClientError>
  readonly connection: Connection
  /** The generation of the connection, for `Initialized`. */
  readonly generation: number
}

/**
 * One protocol era's way to open a connection: it returns what the server
 * and the client agreed on. A handshake must call `connection.negotiated`
 * (when set) as soon as the version is fixed, before anything else is sent.
 *
 * @internal
 */
export interface Handshake {
  readonly run: (context: HandshakeContext) => Effect.Effect<SessionModel.Initialized, McpError.McpClientError>
  /** The era's per-request params decoration (2026-07-28: `_meta` on every request); none for 2025. */
  readonly decorate?: Decorate | undefined
}

/** @internal */
export const notifyOn = (connection: Connection, route: Route) => (method: string, params?: Record<string, unknown>) =>
  sendNotification(connection, route, method, params)
