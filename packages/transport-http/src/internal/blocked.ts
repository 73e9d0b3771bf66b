import * as McpError from "@mcp-effect/core/McpError"

/**
 * What a browser's `fetch` rejects with when CORS refuses a request (or the
 * network fails): a bare `TypeError` whose message names neither. Chromium
 * says "Failed to fetch", Firefox "NetworkError when attempting to fetch
 * resource.", Safari "Load failed". Node's fetch says "fetch failed" and
 * carries a cause: not matched.
 */
const browserMessages = /^(Failed to fetch|NetworkError when attempting to fetch resource|Load failed)/

/** @internal */
export const isBrowserFetchFailure = (error: { readonly reason?: unknown; readonly cause?: unknown }): boolean =>
  error.reason === "Transport" && error.cause instanceof TypeError && browserMessages.test(error.cause.message)

/**
 * Request headers a cross-origin server must list in
 * `Access-Control-Allow-Headers` (everything but the CORS-safelisted ones).
 */
const safelisted = new Set(["accept", "accept-language", "content-language"])

/**
 * The `phase` of a blocked first request of protocol 2026-07-28: a browser
 * blocking it (CORS refusing the `Mcp-*` headers) tells the era, not that
 * the server is unreachable; the session's era negotiation reads it as a
 * legacy server (core `internal/era/negotiation.ts`).
 *
 * @internal
 */
export const modernProbePhase = "modern-blocked"

const blocked = new WeakSet<McpError.TransportError>()

/**
 * A request the browser blocked. The browser never says why, so the message
 * names the headers that needed the server's CORS permission: one of them
 * refused is the usual cause.
 *
 * @internal
 */
export const blockedError = (options: {
  readonly method: string
  readonly target: string
  readonly phase: string
  readonly headers: ReadonlyArray<string>
  readonly tracePropagation: boolean
}): McpError.TransportError => {
  const needed = options.headers.filter((name) => !safelisted.has(name))
  if (options.tracePropagation) needed.push("traceparent", "b3")
  const error = new McpError.TransportError({
    reason: "Connect",
    phase: options.phase,
    message: `${options.method} ${options.target} was blocked (CORS or network): the browser gives no detail. ` +
      `The server must be reachable and its CORS must allow this origin and the headers ${needed.join(", ")}`
  })
  blocked.add(error)
  return error
}

/** @internal */
export const isBlocked = (error: unknown): error is McpError.TransportError =>
  typeof error === "object" && error !== null && blocked.has(error as McpError.TransportError)
