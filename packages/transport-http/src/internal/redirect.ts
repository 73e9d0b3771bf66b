import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as McpError from "@mcp-effect/core/McpError"
import * as Effect from "effect/Effect"
import { describeUrl } from "./config.js"

/** @internal */
export interface Request {
  readonly client: HttpClient.HttpClient
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: URL
  /** every header of the first hop, credentials included */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  /** the origin credentials belong to */
  readonly origin: string
  readonly maxRedirects: number
  readonly discard: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>
}

/**
 * Headers that may follow a request to another origin: nothing that
 * identifies or authorizes. The `Mcp-*` request headers of 2026-07-28 mirror
 * the body, which goes along (`307` / `308`), and the server checks them
 * against it.
 */
const crossOriginHeaders = new Set(["accept", "mcp-protocol-version", "last-event-id", "mcp-method", "mcp-name"])
const crossOriginPrefix = "mcp-param-"

const isRedirect = (status: number) =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308

/**
 * Sends a request and follows redirects itself, whatever the `HttpClient`
 * would do: `fetch` is told `redirect: "manual"` (the transport's
 * `RequestRefs`, which every request runs with), each hop is sent by this
 * function, at most `maxRedirects` hops. Once a hop leaves `origin`, only
 * `Accept`, `MCP-Protocol-Version`, `Last-Event-ID` and the `Mcp-*` request
 * headers (they mirror the body) go with it: no
 * `Authorization`, cookie, auth-hook or static header, no `MCP-Session-Id`
 * (also when a later hop comes back). `307` / `308` keep the method and
 * body; `301` / `302` / `303` are followed for `GET` only (a JSON-RPC POST
 * turned into a GET would lose its message). A browser hides where a
 * manual redirect goes (status 0): that is a typed error.
 *
 * @internal
 */
export const follow = (
  request: Request,
  onFailure: (url: URL, error: HttpClientError.HttpClientError) => McpError.TransportError,
  phase: string
): Effect.Effect<HttpClientResponse.HttpClientResponse, McpError.TransportError> => {
  const refuse = (url: URL, message: string, status?: number) =>
    Effect.fail(
      new McpError.TransportError({
        reason: "Http",
        phase,
        ...(status !== undefined ? { status } : {}),
        message: `${request.method} ${describeUrl(url)} ${message}`
      })
    )
  const hop = (
    url: URL,
    headers: Readonly<Record<string, string>>,
    hops: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, McpError.TransportError> => {
    let outgoing = HttpClientRequest.make(request.method)(url.href, { headers })
    if (request.body !== undefined) outgoing = HttpClientRequest.bodyText(outgoing, request.body, "application/json")
    // (one step for the outcome: failures are mapped where the response is looked at)
    return Effect.matchEffect(request.client.execute(outgoing), {
      onFailure: (error) => Effect.fail(onFailure(url, error)),
      onSuccess: (response) => {
        const status = response.status
        if (status === 0) {
          return refuse(url, "was redirected and the browser hides where to: set url to the final endpoint")
        }
        if (!isRedirect(status)) return Effect.succeed(response)
        const location = response.headers["location"]
        if (location === undefined) return Effect.succeed(response)
        return Effect.zipRight(
          request.discard(response),
          Effect.suspend(() => next(url, headers, hops, status, location))
        )
      }
    })
  }
  const next = (
    url: URL,
    headers: Readonly<Record<string, string>>,
    hops: number,
    status: number,
    location: string
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, McpError.TransportError> => {
    if (hops >= request.maxRedirects) return refuse(url, `redirected more than ${request.maxRedirects} times`, status)
    if (request.method !== "GET" && status !== 307 && status !== 308) {
      return refuse(url, `answered HTTP ${status}: only 307 and 308 redirects keep a ${request.method}`, status)
    }
    let target: URL
    try {
      target = new URL(location, url)
    } catch {
      return refuse(url, `answered HTTP ${status} with an unusable Location`, status)
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return refuse(url, `answered HTTP ${status} with a Location that is not http(s)`, status)
    }
    // once stripped, always stripped (a hop back to the origin does not restore credentials)
    const crossed = target.origin !== request.origin || headers !== request.headers
    return hop(target, crossed ? keepCrossOrigin(request.headers) : headers, hops + 1)
  }
  return hop(request.url, request.headers, 0)
}

const keepCrossOrigin = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (crossOriginHeaders.has(name) || name.startsWith(crossOriginPrefix)) kept[name] = value
  }
  return kept
}
