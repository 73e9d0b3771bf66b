/**
 * The Streamable HTTP transport (MCP 2025-11-25), with a fallback to the
 * 2024-11-05 HTTP+SSE transport.
 *
 * Every message is a POST; answers come back as JSON or as an SSE stream,
 * and server messages outside a request arrive on an optional GET stream.
 * The transport keeps the `MCP-Session-Id` and `MCP-Protocol-Version`
 * headers, resumes dropped SSE streams with `Last-Event-ID`, ends the
 * connection with `SessionExpired` when the server forgets the session, and
 * sends `DELETE` when a connection closes.
 *
 * Only `HttpClient.HttpClient` is required, so the same Layer runs on Node
 * (undici) and in browsers (fetch).
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as RequestHeaders from "@mcp-effect/core/RequestHeaders"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import * as HttpAuth from "./HttpAuth.js"
import * as HttpEra2025 from "./HttpEra2025.js"
import * as HttpEra2026 from "./HttpEra2026.js"
import * as internal from "./internal/connection.js"
import * as Eras from "./internal/eras.js"

/**
 * @since 0.2.0
 * @category type ids
 */
export const EraTypeId: unique symbol = Eras.TypeId

/**
 * @since 0.2.0
 * @category type ids
 */
export type EraTypeId = typeof EraTypeId

/**
 * The transport's part for one protocol era (`HttpEra2025.era`,
 * `HttpEra2026.era`): what Streamable HTTP does differently in that era.
 * A transport made with `layerWith` bundles only the parts it was given.
 *
 * @since 0.2.0
 * @category models
 */
export interface Era {
  readonly [EraTypeId]: EraTypeId
  readonly era: "legacy" | "modern"
}

/**
 * Static credentials, sent on every request. Secrets are `Redacted` and
 * never appear in logs or errors.
 *
 * @since 0.1.0
 * @category models
 */
export type Auth =
  | { readonly _tag: "Bearer"; readonly token: Redacted.Redacted<string> }
  | { readonly _tag: "ApiKey"; readonly header: string; readonly key: Redacted.Redacted<string> }
  | { readonly _tag: "Basic"; readonly username: string; readonly password: Redacted.Redacted<string> }

/**
 * @since 0.1.0
 * @category models
 */
export interface Timeouts {
  /**
   * Longest wait for the response headers of a GET, a DELETE, or a POST
   * carrying a notification or a response. POSTs carrying a request are
   * exempt (a server answering with JSON holds its headers until the result
   * is ready); they are bounded by `totalMillis` and by the session's request
   * timeouts. Default 30 000.
   */
  readonly connectMillis?: number | undefined
  /**
   * Longest silence on an SSE stream (POST or GET) before it is treated as
   * dropped and resumed with `Last-Event-ID`. Default: none.
   */
  readonly idleMillis?: number | undefined
  /**
   * Longest time one POST exchange (headers and body) may take. Default: none.
   */
  readonly totalMillis?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  readonly url: string | URL
  /** Extra headers on every request; `Redacted` values are secrets. */
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  readonly auth?: Auth | undefined
  /** Largest JSON body or SSE event accepted. Default `JsonRpc.defaultMaxMessageBytes` (16 MiB). */
  readonly maxMessageBytes?: number | undefined
  readonly timeouts?: Timeouts | undefined
  /** How a new connection (a new session) is made after the previous one ended. */
  readonly reconnect?: McpTransport.ReconnectOptions | undefined
  /**
   * Delays between attempts to resume a dropped SSE stream or reopen the GET
   * stream; a server's `retry:` field replaces the delay but each attempt
   * still counts. Default: exponential from 500 ms, factor 2, jittered,
   * capped at 30 s, 10 consecutive attempts.
   */
  readonly sseReconnect?: Schedule.Schedule<unknown, unknown> | undefined
  /**
   * Fall back to the 2024-11-05 HTTP+SSE transport when initialize gets
   * 400/404/405 without a JSON-RPC error body. Default `true`.
   */
  readonly fallbackToSse?: boolean | undefined
  /**
   * Capacity of a connection's inbound buffer (messages read from HTTP
   * bodies and SSE streams that the session has not taken yet). When it is
   * full, reading pauses (backpressure on the server) until the session
   * takes messages; nothing is dropped. Default 1024.
   *
   * @since 0.2.0
   */
  readonly inboundCapacity?: number | undefined
  /**
   * Most redirects (`301`/`302`/`303`/`307`/`308`) followed for one request.
   * Credentials, cookies, auth-hook headers and `MCP-Session-Id` are never
   * sent to another origin. Default 5.
   *
   * @since 0.2.0
   */
  readonly maxRedirects?: number | undefined
  /**
   * Upper bound on a server's `Retry-After` (on `429` / `503`). Set it to
   * the cap of your `reconnect` schedule. Default 10 s (the cap of the
   * default reconnect schedule).
   *
   * @since 0.2.0
   */
  readonly maxRetryAfter?: Duration.DurationInput | undefined
  /**
   * Send W3C `traceparent` and B3 `b3` headers of the request's span (the
   * `@effect/platform` `HttpClient` default). Default `false`: in a browser
   * every extra header must be in the server's CORS allow-list, and a
   * careful MCP server allows only the headers MCP needs. Turn it on for
   * servers that accept them.
   *
   * @since 0.2.0
   */
  readonly tracePropagation?: boolean | undefined
}

/**
 * The default `sseReconnect` schedule.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSseReconnect: Schedule.Schedule<unknown, unknown> = internal.defaultSseReconnect

/**
 * Builds the transport service. Picks up an `HttpAuth` hook from the context
 * when one is provided. The `Mcp-*` headers of protocol 2026-07-28 come
 * with each message from the session (from the `RequestHeaders` service
 * that `layer` provides; without one, only the standard headers are sent).
 * An invalid option (a URL that is not absolute
 * `http:` / `https:`, a header name or value that cannot be sent, a negative
 * timeout, ...) fails with `TransportError` (`phase: "options"`), never
 * with a defect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<McpTransport.McpTransport["Type"], McpError.TransportError, HttpClient.HttpClient> =>
  makeWith(bothEras, options)

/**
 * `make`, with only the given eras' parts (`HttpEra2025.era`,
 * `HttpEra2026.era`): with one, the app bundles none of the other's code.
 * Without `HttpEra2025.era` there is no HTTP+SSE fallback; without
 * `HttpEra2026.era` a message of protocol 2026-07-28 fails with a
 * `TransportError` (phase `"options"`) unsent.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeWith = (
  eras: ReadonlyArray<Era>,
  options: Options
): Effect.Effect<McpTransport.McpTransport["Type"], McpError.TransportError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    // (the URL, for what a SessionStore keeps: only ever hashed, as it may carry an API key)
    return yield* internal.makeTransport(options, yield* Effect.serviceOption(HttpAuth.HttpAuth), Eras.partsOf(eras))
  })

/** Both eras' parts: what `make` and `layer` have. */
const bothEras: ReadonlyArray<Era> = [HttpEra2026.era, HttpEra2025.era]

/**
 * The Streamable HTTP transport as a Layer; it needs an `HttpClient`
 * (`NodeHttpClient.layerUndici` on Node, `FetchHttpClient.layer` in a
 * browser). Beside `McpTransport` it provides the `RequestHeaders` service
 * through which `McpClient` (given this Layer) hands over the tool
 * definitions that `Mcp-Param-*` headers come from (protocol 2026-07-28);
 * the session computes each message's headers with it and hands them to
 * the transport.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { McpClient } from "@mcp-effect/core"
 * import { HttpTransport } from "@mcp-effect/transport-http"
 * import { Layer, Redacted } from "effect"
 *
 * const Transport = HttpTransport.layer({
 *   url: "https://mcp.example.com/mcp",
 *   // a static credential; for OAuth provide OAuthClient's layer instead
 *   headers: { authorization: Redacted.make("Bearer my-api-key") }
 * }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(Transport)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<
  McpTransport.McpTransport | RequestHeaders.RequestHeaders,
  McpError.TransportError,
  HttpClient.HttpClient
> => layerWith(bothEras, options)

/**
 * `layer`, with only the given eras' parts (see `makeWith`): with one, the
 * app bundles none of the other's code. Pair it with a client of the same
 * eras (`McpClient.layerWith`). Made without `HttpEra2026.era`, the
 * `RequestHeaders` it provides mirrors nothing (the `Mcp-*` headers are
 * the 2026-07-28 era's) and keeps every tool.
 *
 * @example
 * ```ts
 * import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
 * import * as McpClient from "@mcp-effect/core/McpClient"
 * import * as ProtocolEra2025 from "@mcp-effect/core/ProtocolEra2025"
 * import * as HttpEra2025 from "@mcp-effect/transport-http/HttpEra2025"
 * import * as HttpTransport from "@mcp-effect/transport-http/HttpTransport"
 * import * as Layer from "effect/Layer"
 *
 * // speaks the 2025 era only (with the HTTP+SSE fallback), and bundles none of 2026-07-28's code
 * export const Client = McpClient.layerWith([ProtocolEra2025.era], { clientInfo: { name: "app", version: "1.0.0" } })
 *   .pipe(
 *     Layer.provide(HttpTransport.layerWith([HttpEra2025.era], { url: "https://example.com/mcp" })),
 *     Layer.provide(FetchHttpClient.layer)
 *   )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (
  eras: ReadonlyArray<Era>,
  options: Options
): Layer.Layer<
  McpTransport.McpTransport | RequestHeaders.RequestHeaders,
  McpError.TransportError,
  HttpClient.HttpClient
> =>
  Layer.effectContext(Effect.gen(function*() {
    const modern = Eras.partsOf(eras).modern
    const requestHeaders = modern === undefined ? noRequestHeaders : yield* modern.requestHeaders
    const transport = yield* makeWith(eras, options)
    return Context.make(McpTransport.McpTransport, transport).pipe(
      Context.add(RequestHeaders.RequestHeaders, requestHeaders)
    )
  }))

/** The `RequestHeaders` of a transport without the 2026-07-28 era: no `Mcp-*` header, every tool kept. */
const noRequestHeaders: RequestHeaders.Service = {
  register: (tools) => Effect.succeed(tools),
  headersFor: () => ({})
}
