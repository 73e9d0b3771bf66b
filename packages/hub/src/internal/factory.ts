import * as HttpClient from "@effect/platform/HttpClient"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import { Authorizer, HostResolver, OAuthError, ServerAuth, TokenStore, UrlPolicy } from "@mcp-effect/oauth"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as ServerConfig from "../ServerConfig.js"
import type * as TransportFactory from "../TransportFactory.js"
import { TransportUnavailable } from "../TransportFactory.js"

type Stdio = Extract<ServerConfig.Resolved["transport"], { readonly _tag: "Stdio" }>
type Remote = Exclude<ServerConfig.Resolved["transport"], Stdio>

/** How a platform starts a stdio server, or why it cannot. */
export type StdioBuilder = (
  config: ServerConfig.Resolved,
  transport: Stdio,
  options: TransportFactory.MakeOptions
) => Effect.Effect<TransportFactory.Built, TransportUnavailable, Scope.Scope>

/** A WebSocket server: its URL and the handshake headers (lower-case names; every value a secret). */
export interface WebSocketTarget {
  readonly url: URL
  readonly headers: Readonly<Record<string, Redacted.Redacted<string>>>
}

/** How a platform opens a WebSocket server: its transport Layer, and whether it can send handshake headers. */
export interface WebSocketPlatform {
  /** Browsers send no headers with the handshake: a server that needs some cannot be reached there. */
  readonly sendsHeaders: boolean
  readonly layer: (
    target: WebSocketTarget,
    options: TransportFactory.MakeOptions
  ) => Layer.Layer<McpTransport.McpTransport, { readonly message: string }>
}

/** Builds a transport Layer in the server's scope; a failure (a bad option) is that server's `TransportUnavailable`. */
const build = <E extends { readonly message: string }>(
  config: ServerConfig.Resolved,
  transport: TransportUnavailable["transport"],
  layer: Layer.Layer<McpTransport.McpTransport, E>
): Effect.Effect<Context.Context<McpTransport.McpTransport>, TransportUnavailable, Scope.Scope> =>
  Layer.build(layer).pipe(
    Effect.mapError((error) => new TransportUnavailable({ server: config.name, transport, reason: error.message }))
  )

/**
 * The handshake headers of a WebSocket server: its `headers` and its static credentials. A WebSocket has no
 * auth hook, so `oauth2` cannot be used there; a platform that sends no headers cannot reach a server that
 * needs some.
 */
const webSocketTarget = (
  config: ServerConfig.Resolved,
  transport: Remote,
  platform: WebSocketPlatform
): Effect.Effect<WebSocketTarget, TransportUnavailable> => {
  const unavailable = (reason: string) =>
    Effect.fail(new TransportUnavailable({ server: config.name, transport: "websocket", reason }))
  const headers: Record<string, Redacted.Redacted<string>> = {}
  for (const [name, value] of Object.entries(transport.headers)) headers[name.toLowerCase()] = value
  switch (config.auth.type) {
    case "oauth2":
      return unavailable("OAuth (auth type oauth2) needs an HTTP server; a WebSocket takes static credentials only")
    case "bearer":
      headers.authorization = Redacted.make(`Bearer ${Redacted.value(config.auth.token)}`)
      break
    case "api-key":
      headers[config.auth.header.toLowerCase()] = config.auth.key
      break
    case "basic":
      headers.authorization = Redacted.make(
        `Basic ${Encoding.encodeBase64(`${config.auth.username}:${Redacted.value(config.auth.password)}`)}`
      )
      break
    case "none":
      break
  }
  if (!platform.sendsHeaders && Object.keys(headers).length > 0) {
    return unavailable(
      "a browser sends no headers with a WebSocket handshake (headers or auth are set); " +
        "authenticate with a cookie of the server's origin"
    )
  }
  return Effect.succeed({ url: transport.url, headers })
}

const isLoopback = (url: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)

/** Asked for when an `oauth2` server needs a person to sign in and the app gave no `Authorizer`. */
const noAuthorizer = Authorizer.make("http://127.0.0.1/unused", () =>
  Effect.fail(
    new OAuthError.OAuthError({
      reason: "Configuration",
      message: "the server needs a person to sign in, and the app provides no Authorizer"
    })
  ))

/**
 * A factory over an `HttpClient` Layer and a stdio builder. OAuth servers use
 * the `TokenStore` and `Authorizer` found where the factory is built (a
 * memory store and "no one to ask" otherwise).
 */
export const make = (
  httpClient: Layer.Layer<HttpClient.HttpClient>,
  stdio: StdioBuilder,
  webSocket: WebSocketPlatform
): Effect.Effect<TransportFactory.Service> =>
  Effect.gen(function*() {
    const found = yield* Effect.serviceOption(TokenStore.TokenStore)
    const tokens = Option.isSome(found) ? found.value : yield* TokenStore.makeMemory()
    const authorizer = Option.getOrElse(yield* Effect.serviceOption(Authorizer.Authorizer), () => noAuthorizer)
    // a HostResolver where the factory is built (NodeTransportFactory brings one) makes the URL guard check DNS answers
    const resolver = yield* Effect.serviceOption(HostResolver.HostResolver)
    const oauthContext = Context.make(TokenStore.TokenStore, tokens).pipe(
      Context.add(Authorizer.Authorizer, authorizer),
      Option.isSome(resolver) ? Context.add(HostResolver.HostResolver, resolver.value) : (context) => context
    )

    const http = (
      config: ServerConfig.Resolved,
      transport: Remote,
      options: TransportFactory.MakeOptions
    ) =>
      Effect.gen(function*() {
        let sessionId: string | undefined
        // the session id is only in response headers: watch them on the way in
        const watched = Layer.effect(
          HttpClient.HttpClient,
          Effect.map(HttpClient.HttpClient, (client) =>
            HttpClient.tap(client, (response) =>
              Effect.sync(() => {
                const id = response.headers["mcp-session-id"]
                if (id !== undefined) sessionId = id
              })))
        ).pipe(Layer.provide(httpClient))
        const auth = ServerAuth.transportAuth(config.auth)
        const stack = HttpTransport.layer({
          url: transport.url,
          headers: transport.headers,
          ...(auth === undefined ? {} : { auth }),
          ...(options.reconnect === undefined ? {} : { reconnect: options.reconnect }),
          fallbackToSse: true
        }).pipe(
          Layer.provide(ServerAuth.layer(config.auth, {
            serverUrl: transport.url,
            // a server on this machine may use an authorization server on this machine, over http
            urlPolicy: isLoopback(transport.url) ? UrlPolicy.loopbackDevelopment : UrlPolicy.strict
          })),
          Layer.provide(Layer.succeedContext(oauthContext)),
          Layer.provide(watched)
        )
        const context = yield* build(config, transport._tag === "Http" ? "http" : "sse", stack)
        return {
          context,
          sessionId: Effect.sync(() => sessionId)
        }
      })

    return {
      make: (config, options = {}) => {
        const transport = config.transport
        switch (transport._tag) {
          case "Stdio":
            return stdio(config, transport, options)
          case "WebSocket":
            return webSocketTarget(config, transport, webSocket).pipe(
              Effect.flatMap((target) => build(config, "websocket", webSocket.layer(target, options))),
              Effect.map((context) => ({ context, sessionId: Effect.succeed(undefined) }))
            )
          default:
            return http(config, transport, options)
        }
      }
    }
  })

/** For platforms without processes. */
export const noStdio: StdioBuilder = (config) =>
  Effect.fail(
    new TransportUnavailable({
      server: config.name,
      transport: "stdio",
      reason: "this platform cannot start processes; use an HTTP server"
    })
  )
