import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import type { Options } from "../WebSocketTransport.js"

/** @internal */
export const defaultIncomingCapacity = 1024

/** @internal */
export const defaultMaxBufferedBytes = 1024 * 1024

/** @internal */
export const defaultOpenTimeout: Duration.Duration = Duration.seconds(10)

/** @internal */
export interface Config {
  readonly url: string
  /** scheme, host and path only: the query string may hold secrets */
  readonly description: string
  readonly maxMessageBytes: number
  readonly incomingCapacity: number
  readonly maxBufferedBytes: number
  readonly openTimeout: Duration.Duration
  readonly reconnect: McpTransport.ReconnectOptions | undefined
}

const invalid = (what: string) =>
  new McpError.TransportError({
    reason: "Connect",
    phase: "options",
    message: `invalid WebSocketTransport option: ${what}`
  })

const positiveInteger = (
  value: unknown,
  fallback: number,
  name: string
): Either.Either<number, McpError.TransportError> =>
  value === undefined ?
    Either.right(fallback) :
    typeof value === "number" && Number.isSafeInteger(value) && value > 0 ?
    Either.right(value) :
    Either.left(invalid(`${name} must be a positive integer`))

/**
 * Checks every option; a bad one is a `TransportError` (phase `options`)
 * naming the option, never its value.
 *
 * @internal
 */
export const resolve = (options: Options): Either.Either<Config, McpError.TransportError> =>
  Either.gen(function*() {
    if (!Predicate.isObject(options)) return yield* Either.left(invalid("the options must be an object"))
    let url: URL
    try {
      url = new URL(options.url)
    } catch {
      return yield* Either.left(invalid("url is not an absolute URL"))
    }
    if (url.protocol !== "ws:" && url.protocol !== "wss:") return yield* Either.left(invalid("url must be ws: or wss:"))
    if (url.username !== "" || url.password !== "") {
      return yield* Either.left(invalid("url must not carry credentials (use headers)"))
    }
    if (url.hash !== "") return yield* Either.left(invalid("url must not have a fragment"))
    const openTimeout = options.openTimeout === undefined ?
      Option.some(defaultOpenTimeout) :
      Duration.decodeUnknown(options.openTimeout)
    if (
      Option.isNone(openTimeout) || !Duration.isFinite(openTimeout.value) || Duration.toMillis(openTimeout.value) <= 0
    ) {
      return yield* Either.left(invalid("openTimeout must be a positive, finite duration"))
    }
    return {
      url: url.href,
      description: `${url.protocol}//${url.host}${url.pathname}`,
      maxMessageBytes: yield* positiveInteger(
        options.maxMessageBytes,
        JsonRpc.defaultMaxMessageBytes,
        "maxMessageBytes"
      ),
      incomingCapacity: yield* positiveInteger(options.incomingCapacity, defaultIncomingCapacity, "incomingCapacity"),
      maxBufferedBytes: yield* positiveInteger(options.maxBufferedBytes, defaultMaxBufferedBytes, "maxBufferedBytes"),
      openTimeout: openTimeout.value,
      reconnect: options.reconnect
    }
  })

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// a header value must not end the header line early
const unsafeValue = /[\r\n\0]/
// set by the WebSocket handshake itself
const reserved = new Set([
  "connection",
  "upgrade",
  "host",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-protocol",
  "sec-websocket-extensions"
])

/**
 * Checks the handshake headers and reveals the `Redacted` ones, for the
 * constructor only.
 *
 * @internal
 */
export const resolveHeaders = (
  headers: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
): Either.Either<Record<string, string>, McpError.TransportError> => {
  if (headers === undefined) return Either.right({})
  if (!Predicate.isObject(headers)) return Either.left(invalid("headers must be an object"))
  const out: Record<string, string> = {}
  for (const [name, raw] of Object.entries(headers)) {
    if (!token.test(name)) return Either.left(invalid(`header name ${JSON.stringify(name)}`))
    if (reserved.has(name.toLowerCase())) return Either.left(invalid(`header ${name} is set by the handshake`))
    const value: unknown = Redacted.isRedacted(raw) ? Redacted.value(raw) : raw
    if (typeof value !== "string" || unsafeValue.test(value)) return Either.left(invalid(`the value of header ${name}`))
    out[name.toLowerCase()] = value
  }
  return Either.right(out)
}
