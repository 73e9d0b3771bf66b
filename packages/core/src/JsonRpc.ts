/**
 * JSON-RPC 2.0 messages as they travel on the wire, and a codec that checks
 * the envelope cheaply and turns bad input into a typed value instead of a
 * defect.
 *
 * Messages are the plain wire objects: encoding is `JSON.stringify`, and the
 * envelope is checked by hand (every message of every call passes here).
 *
 * @since 0.1.0
 */
import * as McpError from "./McpError.js"

/**
 * @since 0.1.0
 * @category models
 */
export type RequestId = string | number

/**
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly jsonrpc: "2.0"
  readonly id: RequestId
  readonly method: string
  readonly params?: Record<string, unknown> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Notification {
  readonly jsonrpc: "2.0"
  readonly method: string
  readonly params?: Record<string, unknown> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Success {
  readonly jsonrpc: "2.0"
  readonly id: RequestId
  readonly result: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ErrorObject {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly jsonrpc: "2.0"
  readonly id: RequestId | null
  readonly error: ErrorObject
}

/**
 * @since 0.1.0
 * @category models
 */
export type Response = Success | Failure

/**
 * @since 0.1.0
 * @category models
 */
export type Message = Request | Notification | Success | Failure

/**
 * Input that could not be read as a message. `id` is set when the bad input
 * still named a request id, so the request waiting for it can fail instead of
 * hanging.
 *
 * @since 0.1.0
 * @category models
 */
export interface Malformed {
  readonly _tag: "Malformed"
  readonly error: McpError.DecodeError
  readonly id?: RequestId | undefined
}

/**
 * What a transport hands to the session: a message, or a typed account of
 * input that was not one.
 *
 * @since 0.1.0
 * @category models
 */
export type Incoming = Message | Malformed

/**
 * @since 0.1.0
 * @category guards
 */
export const isMalformed = (u: Incoming): u is Malformed => (u as Malformed)._tag === "Malformed"

/**
 * @since 0.1.0
 * @category guards
 */
export const isRequest = (m: Message): m is Request => "method" in m && "id" in m

/**
 * @since 0.1.0
 * @category guards
 */
export const isNotification = (m: Message): m is Notification => "method" in m && !("id" in m)

/**
 * @since 0.1.0
 * @category guards
 */
export const isResponse = (m: Message): m is Response => !("method" in m)

/**
 * @since 0.1.0
 * @category guards
 */
export const isFailure = (m: Message): m is Failure => "error" in m && !("method" in m)

/**
 * @since 0.1.0
 * @category constructors
 */
export const request = (id: RequestId, method: string, params?: Record<string, unknown>): Request =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }

/**
 * @since 0.1.0
 * @category constructors
 */
export const notification = (method: string, params?: Record<string, unknown>): Notification =>
  params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }

/**
 * @since 0.1.0
 * @category constructors
 */
export const success = (id: RequestId, result: unknown): Success => ({ jsonrpc: "2.0", id, result })

/**
 * @since 0.1.0
 * @category constructors
 */
export const failure = (id: RequestId | null, error: ErrorObject): Failure => ({ jsonrpc: "2.0", id, error })

/**
 * @since 0.1.0
 * @category constructors
 */
export const malformed = (
  reason: McpError.DecodeError["reason"],
  message: string,
  id?: RequestId
): Malformed => ({ _tag: "Malformed", error: new McpError.DecodeError({ reason, message }), id })

/**
 * The default largest message a transport accepts: 16 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxMessageBytes = 16 * 1024 * 1024

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isId = (u: unknown): u is RequestId => typeof u === "string" || (typeof u === "number" && Number.isInteger(u))

/** A short account of a value for an error message; total (a value too deep to serialise is named by its type). */
const describe = (u: unknown): string => {
  let text: string
  try {
    text = JSON.stringify(u) ?? String(u)
  } catch {
    text = Array.isArray(u)
      ? "an array too deeply nested to show"
      : `a value of type ${typeof u} too deeply nested to show`
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}

/**
 * Checks one parsed JSON value against the JSON-RPC 2.0 envelope rules.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromJson = (u: unknown): Incoming => {
  if (!isObject(u)) {
    return malformed("Envelope", `a JSON-RPC message must be an object, got ${describe(u)}`)
  }
  const id = u.id
  if (u.jsonrpc !== "2.0") {
    return malformed("Envelope", `"jsonrpc" must be "2.0" in ${describe(u)}`, isId(id) ? id : undefined)
  }
  if ("method" in u) {
    if (typeof u.method !== "string") {
      return malformed("Envelope", `"method" must be a string in ${describe(u)}`, isId(id) ? id : undefined)
    }
    if (u.params !== undefined && !isObject(u.params)) {
      return malformed("Envelope", `"params" must be an object in ${describe(u)}`, isId(id) ? id : undefined)
    }
    if ("id" in u && !isId(id)) {
      return malformed("Envelope", `request id must be a string or an integer in ${describe(u)}`)
    }
    return u as unknown as Request | Notification
  }
  if ("result" in u) {
    if (!isId(id)) return malformed("Envelope", `response id must be a string or an integer in ${describe(u)}`)
    if ("error" in u) return malformed("Envelope", `a response cannot hold both "result" and "error"`, id)
    return u as unknown as Success
  }
  if ("error" in u) {
    const error = u.error
    if (id !== null && !isId(id)) return malformed("Envelope", `error id must be a string, an integer or null`)
    if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string") {
      return malformed("Envelope", `"error" must hold a numeric code and a message in ${describe(u)}`, id ?? undefined)
    }
    return u as unknown as Failure
  }
  return malformed("Envelope", `not a request, notification or response: ${describe(u)}`, isId(id) ? id : undefined)
}

/**
 * Decodes one frame of text (a line of stdio, an HTTP body, an SSE event).
 * A JSON array is a batch (allowed before 2025-06-18) and yields each of its
 * messages. Never throws.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (text: string, maxBytes: number = defaultMaxMessageBytes): Array<Incoming> => {
  // string length is a lower bound of the UTF-8 size; only measure when it can matter
  if (text.length * 3 > maxBytes && byteLength(text) > maxBytes) {
    return [malformed("TooLarge", `message of ${byteLength(text)} bytes exceeds the limit of ${maxBytes} bytes`)]
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return [malformed("Json", `invalid JSON (${e instanceof Error ? e.message : String(e)}): ${describe(text)}`)]
  }
  if (Array.isArray(json)) {
    return json.length === 0 ? [malformed("Envelope", "empty batch")] : json.map(fromJson)
  }
  return [fromJson(json)]
}

/**
 * @since 0.1.0
 * @category encoding
 */
export const encode = (message: Message): string => JSON.stringify(message)

const encoder = new TextEncoder()

/**
 * @since 0.1.0
 * @category utils
 */
export const byteLength = (text: string): number => encoder.encode(text).length
