/**
 * The transport factory for Node: stdio servers through
 * `NodeStdioTransport` (environment whitelist, shutdown ladder, restarts),
 * Streamable HTTP and HTTP+SSE servers through `HttpTransport` on undici,
 * `ws:` / `wss:` servers through `NodeWebSocketTransport` (`headers` and
 * static `auth` go with the handshake; `oauth2` is for HTTP servers only).
 *
 * OAuth servers (`auth.type: "oauth2"`) use the `TokenStore` and
 * `Authorizer` in the context where the factory is built; without them,
 * tokens are kept in memory and a server that needs a person to sign in
 * ends in `NeedsAuth`. The OAuth URL guard also checks the addresses a
 * server's host names resolve to (`NodeHostResolver`).
 *
 * @since 0.2.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHostResolver from "@mcp-effect/oauth/NodeHostResolver"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import { NodeWebSocketTransport } from "@mcp-effect/transport-websocket/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/factory.js"
import * as TransportFactory from "./TransportFactory.js"

const stdio: internal.StdioBuilder = (_config, transport, options) =>
  Effect.map(
    NodeStdioTransport.make({
      command: transport.command,
      args: transport.args,
      env: transport.env,
      secrets: transport.secrets,
      cwd: transport.cwd,
      reconnect: options.reconnect
    }),
    (built) => ({ context: StdioTransport.toContext(built), sessionId: Effect.succeed(undefined) })
  )

const webSocket: internal.WebSocketPlatform = {
  sendsHeaders: true,
  layer: (target, options) =>
    NodeWebSocketTransport.layer({ url: target.url, headers: target.headers, reconnect: options.reconnect })
}

/**
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<TransportFactory.Service> = internal.make(
  NodeHttpClient.layerUndici,
  stdio,
  webSocket
).pipe(
  // the OAuth URL guard also checks the addresses a host name resolves to
  Effect.provide(NodeHostResolver.layer)
)

/**
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<TransportFactory.TransportFactory> = Layer.effect(
  TransportFactory.TransportFactory,
  make
)
