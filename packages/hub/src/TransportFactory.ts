/**
 * Where a registry's transports come from: a service that turns a resolved
 * server config into the context an `McpClient` runs on. Node gets stdio,
 * HTTP and WebSocket (`NodeTransportFactory`), the browser HTTP and
 * WebSocket (`BrowserTransportFactory`), and tests can supply their own.
 *
 * @since 0.2.0
 */
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as ServerConfig from "./ServerConfig.js"

/**
 * What a factory built for one server.
 *
 * @since 0.2.0
 * @category models
 */
export interface Built {
  /** `McpTransport`, and whatever else the transport offers (e.g. stdio's `StdioLogs`). */
  readonly context: Context.Context<McpTransport.McpTransport>
  /** The transport's current session id, where it has one (Streamable HTTP). */
  readonly sessionId: Effect.Effect<string | undefined>
}

/**
 * Per-server options the registry passes on.
 *
 * @since 0.2.0
 * @category models
 */
export interface MakeOptions {
  readonly reconnect?: McpTransport.ReconnectOptions | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Builds the transport of one server; it lives as long as the scope (the server's own). */
  readonly make: (
    config: ServerConfig.Resolved,
    options?: MakeOptions
  ) => Effect.Effect<Built, TransportUnavailable, Scope.Scope>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class TransportFactory extends Context.Tag("@mcp-effect/hub/TransportFactory")<TransportFactory, Service>() {}

/**
 * This factory cannot build the server's transport (stdio in a browser, a
 * WebSocket with handshake headers in a browser, OAuth over a WebSocket, for
 * example). The registry shows it as that server's `Failed` status.
 *
 * @since 0.2.0
 * @category errors
 */
export class TransportUnavailable extends Schema.TaggedError<TransportUnavailable>(
  "@mcp-effect/hub/TransportUnavailable"
)("TransportUnavailable", {
  server: Schema.String,
  transport: Schema.Literal("stdio", "http", "sse", "websocket"),
  reason: Schema.String
}) {
  override get message(): string {
    return `server "${this.server}": no ${this.transport} transport here: ${this.reason}`
  }
}
