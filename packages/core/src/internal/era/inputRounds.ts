/**
 * Multi-round-trip requests (2026-07-28): a server that needs input to
 * finish a request the method table marks `inputRounds` (`tools/call`,
 * `prompts/get`, `resources/read`) answers with
 * `resultType: "input_required"` and the requests it needs answered. The
 * client answers them with the same handlers that answer server-to-client
 * requests in the legacy era (`Elicitation`, `Sampling`, `Roots`), then sends
 * the original request again, as a new request (a new id), with the answers
 * in `inputResponses` and the server's `requestState` echoed unchanged.
 *
 * Each round is a request of its own, with its own timeout; interrupting the
 * caller interrupts whichever round (or handler) is running.
 *
 * With a continuation tracker set (`Continuations` in the client's context),
 * the rounds are a shared record instead (`policy/continuations.ts`).
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import { checker } from "../engine/decode.js"
import type * as SessionModel from "../engine/sessionModel.js"
import * as Continuations from "../policy/continuationHooks.js"

/**
 * How many times in a row a server may ask for input before the request
 * fails: a server that never settles must not keep a caller forever.
 *
 * @internal
 */
export const maxRounds = 16

/**
 * What a retry adds to the original params.
 *
 * @internal
 */
export interface Answers {
  readonly inputResponses: Record<string, unknown>
  readonly requestState?: string
}

const decodeInputRequired = checker(McpSchema.InputRequiredResult)

/**
 * The results a server gave to a retry with answers (never cached: they
 * depend on the answers, which no cache key holds).
 *
 * @internal
 */
export const answered = new WeakSet<object>()

/**
 * Whether a result asks for input (`run` then follows its rounds).
 *
 * @internal
 */
export const isInputRequired = (raw: unknown): boolean =>
  typeof raw === "object" && raw !== null && (raw as { resultType?: unknown }).resultType === "input_required"

/**
 * Follows a request's `first` result through its input rounds: while the
 * server's result is `input_required`, answers its input requests and sends
 * the request again with the answers (`retry`), until a result is not.
 * `params` (the original ones) go into a continuation's record.
 *
 * @internal
 */
export const run = (
  method: string,
  first: unknown,
  retry: (answers: Answers) => Effect.Effect<unknown, McpError.McpClientError>,
  handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>,
  params?: Record<string, unknown>
): Effect.Effect<unknown, McpError.McpClientError> =>
  Effect.flatMap(
    FiberRef.get(Continuations.currentTracker),
    (tracker) =>
      tracker === undefined || !isInputRequired(first) ?
        local(method, first, retry, handlers) :
        tracker.follow({
          method,
          params,
          first,
          retry,
          answer: (requests) => answer(method, requests, handlers),
          canAnswer: (requestMethod) => handlers.has(requestMethod),
          maxRounds
        })
  )

const local = (
  method: string,
  first: unknown,
  retry: (answers: Answers) => Effect.Effect<unknown, McpError.McpClientError>,
  handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>
): Effect.Effect<unknown, McpError.McpClientError> => {
  const round = (raw: unknown, n: number): Effect.Effect<unknown, McpError.McpClientError> => {
    if (!isInputRequired(raw)) {
      if (n > 0 && typeof raw === "object" && raw !== null) answered.add(raw)
      return Effect.succeed(raw)
    }
    const decoded = decodeInputRequired(raw)
    if (decoded._tag === "Left") {
      return Effect.fail(
        new McpError.DecodeError({
          reason: "Schema",
          method,
          message: `invalid input_required result: ${decoded.left}`
        })
      )
    }
    if (n >= maxRounds) {
      return Effect.fail(
        new McpError.ProtocolError({
          code: McpError.ErrorCode.InternalError,
          method,
          message: `the server asked for input ${maxRounds} times in a row; ${method} was given up (client-side limit)`
        })
      )
    }
    const result = decoded.right
    return Effect.map(answer(method, result.inputRequests ?? {}, handlers), (inputResponses) => ({
      inputResponses,
      ...(result.requestState !== undefined ? { requestState: result.requestState } : {})
    })).pipe(
      Effect.flatMap(retry),
      Effect.flatMap((next) => round(next, n + 1))
    )
  }
  return round(first, 0)
}

/**
 * Answers the server's input requests one after the other, in the order the
 * server listed them.
 *
 * @internal
 */
export const answer = (
  method: string,
  requests: Readonly<Record<string, McpSchema.InputRequest>>,
  handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>
): Effect.Effect<Record<string, unknown>, McpError.McpClientError> =>
  Effect.reduce(Object.entries(requests), {} as Record<string, unknown>, (responses, [key, request]) => {
    const handler = handlers.get(request.method)
    if (handler === undefined) {
      return Effect.fail(
        new McpError.ProtocolError({
          code: McpError.ErrorCode.MethodNotFound,
          method,
          message: `the server needs ${request.method} answered to finish ${method}, and this client has no handler ` +
            "for it (provide the Elicitation, Sampling or Roots layer)"
        })
      )
    }
    return Effect.map(handler(request.params ?? {}, { requestId: key }), (response) => {
      responses[key] = response
      return responses
    })
  })

/**
 * The params of a retry: the original params with the answers added.
 *
 * @internal
 */
export const withAnswers = (
  params: Record<string, unknown> | undefined,
  answers: Answers | undefined
): Record<string, unknown> | undefined => answers === undefined ? params : { ...params, ...answers }
