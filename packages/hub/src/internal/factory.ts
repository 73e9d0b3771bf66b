import * as HttpClient from "@effect/platform/HttpClient"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import { Authorizer, HostResolver, OAuthError, ServerAuth, TokenStore, UrlPolicy } from "@mcp-effect/oauth"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as ServerConfig from "../ServerConfig.js"
import type * as TransportFactory from "../TransportFactory.js"
import { TransportUnavailable } from "../TransportFactory.js"

type Stdio = Extract<ServerConfig.Resolved["transport"], { readonly _tag: "Stdio" }>

/** How a platform starts a stdio server, or why it cannot. */
export type StdioBuilder = (
  config: ServerConfig.Resolved,
  transport: Stdio,
  options: TransportFactory.MakeOptions
) => Effect.Effect<TransportFactory.Built, TransportUnavailable, Scope.Scope>

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
  stdio: StdioBuilder
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
      transport: Exclude<ServerConfig.Resolved["transport"], Stdio>,
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
        const context = yield* Layer.build(stack).pipe(
          Effect.mapError((error) =>
            new TransportUnavailable({
              server: config.name,
              transport: transport._tag === "Http" ? "http" : "sse",
              reason: error.message
            })
          )
        )
        return {
          context: context as Context.Context<McpTransport.McpTransport>,
          sessionId: Effect.sync(() => sessionId)
        }
      })

    return {
      make: (config, options = {}) => {
        const transport = config.transport
        return transport._tag === "Stdio" ? stdio(config, transport, options) : http(config, transport, options)
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
