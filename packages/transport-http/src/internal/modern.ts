/**
 * Streamable HTTP as protocol 2026-07-28 (the modern, stateless era) binds
 * it: every POST carries `MCP-Protocol-Version` and the `Mcp-*` request
 * headers, never a session id; response streams cannot be resumed; closing
 * a request's response stream is its cancellation (`Connection.cancel`,
 * which the session calls); the listen request (`subscriptions/listen`) is
 * a POST whose SSE response stays open, posted again when it drops.
 *
 * The transport reads none of this off the message: the session's era
 * codec hands each message's version, headers and kind over as
 * `McpTransport.SendOptions`.
 */
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Backoff from "./backoff.js"
import type { Ctx } from "./context.js"
import { consume, makeProgress } from "./streams.js"

/**
 * What one connection knows of the modern era.
 *
 * @internal
 */
export interface Era {
  /** set once a modern request was accepted (2xx): from then on every JSON-RPC error body is an answer */
  confirmed: boolean
}

/**
 * The headers of a modern POST: the version, and the ones the session's
 * codec mirrored from the message (`Mcp-Method`, `Mcp-Name` and, for a tool
 * whose schema asks for them, `Mcp-Param-*`).
 *
 * @internal
 */
export const headers = (
  version: string,
  mirrored: Readonly<Record<string, string>> | undefined
): Record<string, string> => ({
  ...mirrored,
  "mcp-protocol-version": version
})

/**
 * Errors only a server of the modern era answers: an unsupported version
 * (with the versions it supports), headers that do not match the body, a
 * missing client capability, and an unknown method on `404`.
 */
const modernCodes: ReadonlySet<number> = new Set([
  McpError.ErrorCode.UnsupportedProtocolVersion,
  McpError.ErrorCode.HeaderMismatch,
  McpError.ErrorCode.MissingRequiredClientCapability
])

/**
 * Whether a JSON-RPC error in the body of an HTTP error answers a modern
 * request. Until the server accepted a modern request, only an error of
 * the modern era counts: any other is how a legacy server refuses a request
 * it cannot read, and becomes a `TransportError` (reason `Http`, with the
 * status) that the session takes as "speak the legacy era".
 *
 * @internal
 */
export const isAnswer = (era: Era, status: number, failure: JsonRpc.Failure): boolean =>
  era.confirmed || modernCodes.has(failure.error.code) ||
  (status === 404 && failure.error.code === McpError.ErrorCode.MethodNotFound)

/**
 * Reads the SSE answer of a modern POST. A stream that ends before its
 * request is answered cannot be resumed (the revision has no
 * `Last-Event-ID`): for `subscriptions/listen` the request is posted again
 * (`relisten`, on the `sseReconnect` schedule, reset by a stream that
 * delivered events); for any other request the connection ends, and the
 * session's replay policy decides what becomes of it.
 *
 * @internal
 */
export const followStream = (
  ctx: Ctx,
  response: HttpClientResponse.HttpClientResponse,
  pending: Set<JsonRpc.RequestId>,
  relisten: ((backoff: Backoff.Backoff) => Effect.Effect<void, McpTransport.ConnectionError>) | undefined,
  backoff: Backoff.Backoff = Backoff.make(ctx.config.sseReconnect)
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { config } = ctx
    const progress = makeProgress()
    const outcome = yield* Effect.either(consume(ctx, response, progress, "post-stream", pending))
    if (pending.size === 0 || ctx.state.failure !== undefined) return
    let why = Either.isLeft(outcome) ? outcome.left.message : "the server closed it before answering"
    if (relisten === undefined) {
      return yield* ctx.fail(
        new McpError.TransportError({
          reason: Either.isLeft(outcome) ? "Read" : "Closed",
          phase: "post-stream",
          message: `lost the response stream of a request (${why}); streams of protocol 2026-07-28 cannot be resumed`
        })
      )
    }
    if (progress.events > 0) yield* backoff.reset
    while (ctx.state.failure === undefined) {
      const delay = yield* backoff.next
      if (Option.isNone(delay)) {
        return yield* ctx.fail(
          new McpError.TransportError({
            reason: "Exhausted",
            phase: "listen",
            message: `gave up listening to ${config.description} again: ${why}`
          })
        )
      }
      yield* Effect.logDebug("mcp http: listening again", config.description, why)
      yield* Effect.sleep(progress.retryMillis ?? delay.value)
      const again = yield* Effect.either(relisten(backoff))
      if (Either.isRight(again)) return
      if (again.left._tag !== "TransportError") return yield* ctx.fail(again.left)
      why = again.left.message
    }
  })
