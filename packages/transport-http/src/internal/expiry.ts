import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Config } from "./config.js"
import { discard, readLimited } from "./exchange.js"

/**
 * What a server says when it does not know a session id: the spec's answer
 * is `404`, but servers built on the official SDK's examples
 * (server-everything among them) answer `400` with a JSON-RPC error
 * "Bad Request: No valid session ID provided". Such a `400` to a request
 * that carried a session id means the session expired too.
 */
const unknownSession =
  /\bsession\b[^.]*\b(not found|unknown|invalid|expired|terminated|does not exist|no longer)|\b(no valid|unknown|invalid|expired) session/i

/**
 * Whether the body of an error answer says the session is unknown (its
 * JSON-RPC error message, or the text itself).
 *
 * @internal
 */
export const saysSessionUnknown = (body: string): boolean => {
  let message: unknown = body
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null && "error" in parsed) {
      const error = (parsed as { readonly error: unknown }).error
      message = typeof error === "object" && error !== null && "message" in error ? error.message : error
    }
  } catch {
    // not JSON: the text itself
  }
  return typeof message === "string" && unknownSession.test(message.slice(0, 1024))
}

/** The most of an error body read. @internal */
export const errorBodyBytes = 64 * 1024

/**
 * Reads a (small) error body: `undefined` when it is too large or breaks.
 *
 * @internal
 */
export const readErrorBody = (
  config: Config,
  response: HttpClientResponse.HttpClientResponse,
  phase: string
): Effect.Effect<string | undefined> =>
  readLimited(config, response, errorBodyBytes, phase).pipe(
    Effect.map(Option.getOrUndefined),
    Effect.orElseSucceed(() => undefined)
  )

/**
 * Consumes the body of an answer that is not a stream to read, and says
 * whether it means the server forgot the session the request carried:
 * `404`, or `400` with a body saying so (a `400` body is read for that,
 * any other is discarded).
 *
 * @internal
 */
export const consume = (
  config: Config,
  response: HttpClientResponse.HttpClientResponse,
  hadSession: boolean,
  phase: string
): Effect.Effect<boolean> =>
  hadSession && response.status === 400 ?
    Effect.map(readErrorBody(config, response, phase), (body) => body !== undefined && saysSessionUnknown(body)) :
    Effect.as(discard(config, response), hadSession && response.status === 404)
