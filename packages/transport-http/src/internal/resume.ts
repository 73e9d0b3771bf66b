import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Ctx } from "./context.js"
import { discard } from "./exchange.js"
import { isEventStream } from "./streams.js"

/**
 * How probing a stored session went: the server still knows it (with its
 * GET stream open, when it offers one), or it forgot it.
 *
 * @internal
 */
export type Probe =
  | { readonly _tag: "Resumed"; readonly stream: Option.Option<HttpClientResponse.HttpClientResponse> }
  | { readonly _tag: "Forgotten" }

/**
 * Continues a stored session: takes its id and protocol version, and opens
 * the GET stream with `Last-Event-ID` so the server replays what was missed.
 * `404` (or any refusal but `405`, which only says there is no GET stream)
 * means the server no longer has the session: the connection is left
 * without one, for a new `initialize`. A failure to reach the server fails
 * the connect (the stored session is offered again on the next attempt).
 *
 * @internal
 */
export const probe = (ctx: Ctx, resume: McpTransport.Resume): Effect.Effect<Probe, McpError.TransportError> =>
  Effect.gen(function*() {
    const { config, state } = ctx
    state.sessionId = Redacted.value(resume.sessionId)
    state.protocolVersion = resume.protocolVersion
    const headers = ctx.sessionHeaders()
    const result = yield* Effect.either(ctx.execute({
      method: "GET",
      accept: "text/event-stream",
      headers: resume.lastEventId === undefined ? headers : { ...headers, "last-event-id": resume.lastEventId },
      phase: "resume-session",
      connectTimeout: true
    }))
    if (Either.isLeft(result) && result.left._tag === "TransportError") return yield* Effect.fail(result.left)
    const response = Either.getOrUndefined(result)
    if (response !== undefined && response.status >= 200 && response.status < 300 && isEventStream(response)) {
      return { _tag: "Resumed", stream: Option.some(response) } as const
    }
    if (response !== undefined) yield* discard(config, response)
    if (response !== undefined && (response.status === 405 || (response.status >= 200 && response.status < 300))) {
      return { _tag: "Resumed", stream: Option.none() } as const
    }
    yield* Effect.logDebug(
      "mcp http: the server no longer knows the stored session; starting a new one",
      config.description,
      response?.status ?? (Either.isLeft(result) ? result.left.message : "")
    )
    state.sessionId = undefined
    state.protocolVersion = undefined
    return { _tag: "Forgotten" } as const
  })
