/**
 * The interactive step for Node apps (CLIs, desktop): a loopback HTTP
 * server on 127.0.0.1 (RFC 8252) receives the redirect. The authorization
 * URL is handed to an app-supplied `open` function (print it, or open the
 * browser); the default prints it to stderr.
 *
 * The server listens only while one authorization is in progress, takes
 * only the callback carrying that authorization's `state` (any other
 * request, a wrong or missing `state`, a favicon, another path, gets a `400`
 * page and the flow goes on waiting), answers with a fixed page (nothing
 * from the URL is echoed), and closes itself afterwards. Node only: import it as
 * `@mcp-effect/oauth/NodeAuthorizer` (it is not in the package's barrel, which
 * stays browser-safe).
 *
 * @since 0.1.0
 */
/// <reference types="node" />
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Authorizer from "./Authorizer.js"
import { OAuthError } from "./OAuthError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The port to listen on; `0` (the default) picks a free one for each authorization. */
  readonly port?: number | undefined
  /** The callback path. Default `/callback`. */
  readonly path?: string | undefined
  /** Brings the user to the authorization URL. Default: `printUrl`. */
  readonly open?: ((url: URL) => Effect.Effect<void>) | undefined
  /** How long to wait for the callback. Default 5 minutes. */
  readonly timeout?: Duration.DurationInput | undefined
}

/**
 * Prints the authorization URL to stderr.
 *
 * @since 0.1.0
 * @category constructors
 */
export const printUrl = (url: URL): Effect.Effect<void> =>
  Console.error(`Open this URL in your browser to authorize:\n\n  ${url.href}\n`)

const page = (title: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body><p>${title}</p></body></html>`

const listen = (server: http.Server, port: number): Effect.Effect<number, OAuthError> =>
  Effect.async<number, OAuthError>((resume) => {
    const onError = (error: Error) =>
      resume(Effect.fail(new OAuthError({ reason: "Interaction", message: `loopback server: ${error.message}` })))
    server.once("error", onError)
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError)
      resume(Effect.succeed((server.address() as AddressInfo).port))
    })
  })

const close = (server: http.Server): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Authorizer.Service => {
  const path = options.path ?? "/callback"
  const open = options.open ?? printUrl
  const timeout = options.timeout ?? Duration.minutes(5)
  const session = Effect.gen(function*() {
    const callback = yield* Deferred.make<URLSearchParams>()
    /** The `state` of the authorization in progress: only a callback carrying it is taken. */
    let pending: string | undefined
    let completed = false
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1")
      const respond = (status: number, title: string) => {
        res.writeHead(status, {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "content-security-policy": "default-src 'none'",
          "referrer-policy": "no-referrer"
        })
        res.end(page(title))
      }
      if (req.method !== "GET" || url.pathname !== path) return respond(400, "Not an authorization response")
      const state = url.searchParams.get("state")
      if (state === null || state !== pending) {
        return respond(
          400,
          completed
            ? "This authorization was already completed"
            : "Not the authorization response this app is waiting for"
        )
      }
      pending = undefined
      completed = true
      Deferred.unsafeDone(callback, Effect.succeed(url.searchParams))
      respond(
        200,
        url.searchParams.has("error")
          ? "Authorization failed. You can close this window."
          : "Authorization complete. You can close this window."
      )
    })
    const port = yield* Effect.acquireRelease(listen(server, options.port ?? 0), () => close(server))
    const redirectUri = `http://127.0.0.1:${port}${path}`
    const authorize = (request: Authorizer.AuthorizationRequest) =>
      Effect.sync(() => (pending = request.state)).pipe(
        Effect.zipRight(open(request.url)),
        Effect.zipRight(Deferred.await(callback)),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new OAuthError({
              reason: "Interaction",
              interaction: "TimedOut",
              message: `no authorization callback within ${Duration.format(timeout)}`
            })
        })
      )
    return { redirectUri, authorize }
  })
  return { session }
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Authorizer.Authorizer> =>
  Layer.succeed(Authorizer.Authorizer, make(options))
