/**
 * Streamable HTTP as protocol 2026-07-28 (the modern, stateless era) binds
 * it: every POST carries `MCP-Protocol-Version` (the version in the
 * request's `_meta`) and the `Mcp-*` request headers, never a session id;
 * response streams cannot be resumed; closing a request's response stream
 * is its cancellation (`Connection.cancel`, which the session calls);
 * `subscriptions/listen` is a POST whose SSE response
 * stays open, posted again when it drops.
 *
 * A request is modern when its `_meta` names a protocol version: the
 * transport mirrors the body, as the revision asks, and needs no state of
 * the session for it. Notifications carry no version; they follow the last
 * request, once the server accepted a modern one.
 */
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import type * as RequestHeaders from "@mcp-effect/core/RequestHeaders"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Backoff from "./backoff.js"
import type { Ctx } from "./context.js"
import { consume, makeProgress } from "./streams.js"

const versionKey = McpSchema.MetaKey.ProtocolVersion

/** The long-lived request whose response stream carries change notifications. */
const listenMethod = "subscriptions/listen"

/**
 * What one connection knows of the modern era.
 *
 * @internal
 */
export interface Era {
  /** the version of the last modern request sent; `undefined` while none was */
  version: string | undefined
  /** set once a modern request was accepted (2xx): from then on every JSON-RPC error body is an answer */
  confirmed: boolean
}

/** @internal */
export const makeEra = (): Era => ({ version: undefined, confirmed: false })

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The protocol version a request's `_meta` names, `undefined` for a message
 * of the legacy era.
 *
 * @internal
 */
export const versionOf = (message: JsonRpc.Message): string | undefined => {
  if (!JsonRpc.isRequest(message) || !isObject(message.params)) return undefined
  const meta = message.params._meta
  const version = isObject(meta) ? meta[versionKey] : undefined
  return typeof version === "string" && version !== "" ? version : undefined
}

/**
 * Notes the era of a message about to be posted; returns the modern
 * version it is sent under, `undefined` for a legacy message. A legacy
 * request (`initialize` after a refused probe) returns the connection to the
 * legacy era; a notification is modern only once a modern request was
 * accepted.
 *
 * @internal
 */
export const track = (era: Era, message: JsonRpc.Message): string | undefined => {
  if (JsonRpc.isNotification(message)) return era.confirmed ? era.version : undefined
  if (!JsonRpc.isRequest(message)) return undefined
  const version = versionOf(message)
  if (version === undefined) era.confirmed = false
  era.version = version
  return version
}

/**
 * The headers of a modern POST: the version, `Mcp-Method`, `Mcp-Name` and,
 * for a tool whose schema asks for them, `Mcp-Param-*`.
 *
 * @internal
 */
export const headers = (
  version: string,
  message: JsonRpc.Request | JsonRpc.Notification,
  requestHeaders: RequestHeaders.Service
): Record<string, string> => ({
  ...requestHeaders.headersFor(message.method, message.params),
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

/** @internal */
export const isListen = (message: JsonRpc.Message): boolean =>
  JsonRpc.isRequest(message) && message.method === listenMethod

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
