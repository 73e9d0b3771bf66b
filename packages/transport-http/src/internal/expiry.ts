import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Config } from "./config.js"
import { discard, readLimited } from "./exchange.js"

/**
 * Whether the body of an error answer says the server does not know the
 * session: the spec's answer is `404`, but servers built on the official
 * SDK's examples (server-everything among them) answer `400` with a
 * JSON-RPC error "Bad Request: No valid session ID provided". Such a `400`
 * to a request that carried a session id means the session expired too.
 * (The body's text is read as it is: a JSON-RPC error's message is in it.)
 *
 * @internal
 */
export const saysSessionUnknown = (body: string): boolean =>
  /\bsession\b[^.]{0,40}\b(not found|unknown|invalid|expired|terminated|does not exist|no longer)|\b(no valid|unknown|invalid|expired) session/i
    .test(body.slice(0, 1024))

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
