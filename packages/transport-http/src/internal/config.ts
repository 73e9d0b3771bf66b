import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type { Options } from "../HttpTransport.js"

/** @internal */
export type AnySchedule = Schedule.Schedule<unknown, unknown>

/** @internal */
export const defaultSseReconnect: AnySchedule = Schedule.exponential("500 millis", 2).pipe(
  Schedule.jittered,
  Schedule.modifyDelay((d) => Duration.min(d, Duration.seconds(30))),
  Schedule.intersect(Schedule.recurs(10))
)

/** @internal */
export const defaultInboundCapacity = 1024

/** @internal */
export const defaultMaxRedirects = 5

/** @internal */
export const defaultMaxRetryAfterMillis = 10_000

/** @internal */
export interface Config {
  readonly url: URL
  /** origin and path only: the query string may hold secrets */
  readonly description: string
  readonly staticHeaders: Readonly<Record<string, string>>
  readonly secretNames: ReadonlyArray<string>
  readonly maxMessageBytes: number
  readonly connectMillis: number
  readonly idleMillis: number | undefined
  readonly totalMillis: number | undefined
  readonly healthyAfterMillis: number
  readonly sseReconnect: AnySchedule
  readonly fallbackToSse: boolean
  readonly inboundCapacity: number
  readonly maxRedirects: number
  readonly maxRetryAfterMillis: number
  readonly tracePropagation: boolean
}

/** @internal */
export const describeUrl = (url: URL): string => `${url.origin}${url.pathname}`

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// a header value must not end the header line early
const unsafeValue = /[\r\n\0]/

/**
 * Checks every option and builds the config; a bad option is a typed
 * `TransportError` (phase `options`) whose message names the option, never
 * its value (values may be secrets).
 *
 * @internal
 */
export const resolveConfig = (options: Options): Either.Either<Config, McpError.TransportError> => {
  const invalid = (what: string) =>
    Either.left(
      new McpError.TransportError({
        reason: "Connect",
        phase: "options",
        message: `invalid HttpTransport option: ${what}`
      })
    )
  if (!Predicate.isObject(options)) return invalid("the options must be an object")
  let url: URL
  try {
    url = new URL(options.url)
  } catch {
    return invalid("url is not an absolute URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return invalid("url must be http: or https:")
  if (url.username !== "" || url.password !== "") return invalid("url must not carry credentials (use auth)")
  const staticHeaders: Record<string, string> = {}
  const secretNames: Array<string> = ["authorization"]
  const setHeader = (name: string, value: unknown, secret: boolean): string | undefined => {
    if (typeof name !== "string" || !token.test(name)) return `header name ${JSON.stringify(String(name))}`
    if (typeof value !== "string" || unsafeValue.test(value)) return `the value of header ${name}`
    const key = name.toLowerCase()
    if (secret) secretNames.push(key)
    staticHeaders[key] = value
    return undefined
  }
  const headers = options.headers ?? {}
  if (!Predicate.isObject(headers)) return invalid("headers must be an object")
  for (const [name, value] of Object.entries(headers)) {
    const secret = Redacted.isRedacted(value)
    const problem = setHeader(name, secret ? Redacted.value(value) : value, secret)
    if (problem !== undefined) return invalid(problem)
  }
  const auth = options.auth
  if (auth !== undefined) {
    const secretOf = (value: unknown): string | undefined =>
      Redacted.isRedacted(value) && typeof Redacted.value(value) === "string" ?
        Redacted.value(value) as string :
        undefined
    let problem: string | undefined
    switch (auth?._tag) {
      case "Bearer": {
        const secret = secretOf(auth.token)
        problem = secret === undefined
          ? "auth.token must be a Redacted string"
          : setHeader("authorization", `Bearer ${secret}`, true)
        break
      }
      case "Basic": {
        const secret = secretOf(auth.password)
        problem = secret === undefined ?
          "auth.password must be a Redacted string" :
          typeof auth.username !== "string" || auth.username.includes(":") ?
          "auth.username must be a string without ':'" :
          setHeader("authorization", `Basic ${Encoding.encodeBase64(`${auth.username}:${secret}`)}`, true)
        break
      }
      case "ApiKey": {
        const secret = secretOf(auth.key)
        problem = secret === undefined ? "auth.key must be a Redacted string" : setHeader(auth.header, secret, true)
        break
      }
      default:
        problem = "auth._tag must be Bearer, ApiKey or Basic"
    }
    if (problem !== undefined) return invalid(problem)
  }
  const count = (name: string, value: unknown, fallback: number, min: number): number | string =>
    value === undefined ?
      fallback :
      typeof value === "number" && Number.isInteger(value) && value >= min ?
      value :
      `${name} must be an integer >= ${min}`
  const millis = (name: string, value: unknown): number | undefined | string =>
    value === undefined ?
      undefined :
      typeof value === "number" && Number.isFinite(value) && value >= 0 ?
      value :
      `${name} must be a finite number >= 0`
  if (options.sseReconnect !== undefined && !Schedule.isSchedule(options.sseReconnect)) {
    return invalid("sseReconnect must be a Schedule")
  }
  if (options.fallbackToSse !== undefined && typeof options.fallbackToSse !== "boolean") {
    return invalid("fallbackToSse must be a boolean")
  }
  const maxMessageBytes = count("maxMessageBytes", options.maxMessageBytes, JsonRpc.defaultMaxMessageBytes, 1)
  const inboundCapacity = count("inboundCapacity", options.inboundCapacity, defaultInboundCapacity, 1)
  const maxRedirects = count("maxRedirects", options.maxRedirects, defaultMaxRedirects, 0)
  const connectMillis = millis("timeouts.connectMillis", options.timeouts?.connectMillis)
  const idleMillis = millis("timeouts.idleMillis", options.timeouts?.idleMillis)
  const totalMillis = millis("timeouts.totalMillis", options.timeouts?.totalMillis)
  const healthyAfterMillis = millis("reconnect.healthyAfterMillis", options.reconnect?.healthyAfterMillis)
  let maxRetryAfterMillis: number | string = defaultMaxRetryAfterMillis
  if (options.maxRetryAfter !== undefined) {
    const decoded = Duration.decodeUnknown(options.maxRetryAfter)
    maxRetryAfterMillis = decoded._tag === "Some" && Duration.isFinite(decoded.value) ?
      Duration.toMillis(decoded.value) :
      "maxRetryAfter must be a finite Duration"
  }
  for (
    const value of [
      maxMessageBytes,
      inboundCapacity,
      maxRedirects,
      connectMillis,
      idleMillis,
      totalMillis,
      healthyAfterMillis,
      maxRetryAfterMillis
    ]
  ) {
    if (typeof value === "string") return invalid(value)
  }
  return Either.right({
    url,
    description: describeUrl(url),
    staticHeaders,
    secretNames,
    maxMessageBytes: maxMessageBytes as number,
    connectMillis: (connectMillis as number | undefined) ?? 30_000,
    idleMillis: idleMillis as number | undefined,
    totalMillis: totalMillis as number | undefined,
    healthyAfterMillis: (healthyAfterMillis as number | undefined) ?? 10_000,
    sseReconnect: options.sseReconnect ?? defaultSseReconnect,
    fallbackToSse: options.fallbackToSse ?? true,
    inboundCapacity: inboundCapacity as number,
    maxRedirects: maxRedirects as number,
    maxRetryAfterMillis: maxRetryAfterMillis as number,
    tracePropagation: options.tracePropagation ?? false
  })
}
