/**
 * The transport factory for browsers: Streamable HTTP and HTTP+SSE servers
 * through `HttpTransport` on `fetch`, `ws:` / `wss:` servers through
 * `BrowserWebSocketTransport`. A stdio server, and a WebSocket server with
 * `headers` or static `auth` (a browser sends no handshake headers), fail
 * with `TransportUnavailable`, which the registry shows as that server's
 * `Failed` status while the others run.
 *
 * OAuth servers use the `TokenStore` and `Authorizer` in the context where
 * the factory is built (for example `BrowserTokenStore` and
 * `BrowserAuthorizer` from `@mcp-effect/oauth`).
 *
 * @since 0.2.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { BrowserWebSocketTransport } from "@mcp-effect/transport-websocket/browser"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/factory.js"
import * as TransportFactory from "./TransportFactory.js"

/**
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<TransportFactory.Service> = internal.make(
  FetchHttpClient.layer,
  internal.noStdio,
  {
    sendsHeaders: false,
    layer: (target, options) => BrowserWebSocketTransport.layer({ url: target.url, reconnect: options.reconnect })
  }
)

/**
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<TransportFactory.TransportFactory> = Layer.effect(
  TransportFactory.TransportFactory,
  make
)
