// What the client, the tool-call path and the input rounds read to make a request's input rounds
// durable (`continuations.ts` has the rest): a module of its own, so a client without
// `Continuations` does not bundle the records' schemas.
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type * as Continuations from "../../Continuations.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"

/** The public module's tag, by its key (the public module is imported as a type only). @internal */
export const tag = Context.GenericTag<Continuations.Continuations, Continuations.Service>(
  "@mcp-effect/core/Continuations"
)

/** @internal */
export const currentIdentity = FiberRef.unsafeMake<Continuations.Identity | undefined>(undefined)

/** The `ToolCallLog` record of the tool call running in this fiber (set by the tool-call path). @internal */
export const currentLogId = FiberRef.unsafeMake<string | undefined>(undefined)

/**
 * What the input rounds hand the tracker: the request, its first
 * `input_required` answer, how to send a retry without rounds of its own,
 * and this process's handlers.
 *
 * @internal
 */
export interface FollowInput {
  readonly method: string
  readonly params: { readonly [key: string]: unknown } | undefined
  readonly first: unknown
  readonly retry: (
    answers: { readonly inputResponses: { [key: string]: unknown }; readonly requestState?: string }
  ) => Effect.Effect<unknown, McpError.McpClientError>
  /** Answers the requests with this process's handlers. */
  readonly answer: (
    requests: { readonly [key: string]: McpSchema.InputRequest }
  ) => Effect.Effect<{ [key: string]: unknown }, McpError.McpClientError>
  /** Whether this process has a handler for an input request's method. */
  readonly canAnswer: (method: string) => boolean
  readonly maxRounds: number
}

/**
 * Set (by the client, or by `answer`) around a request whose input rounds
 * are to be durable records.
 *
 * @internal
 */
export interface Tracker {
  readonly follow: (input: FollowInput) => Effect.Effect<unknown, McpError.McpClientError>
}

/** @internal */
export const currentTracker = FiberRef.unsafeMake<Tracker | undefined>(undefined)

/**
 * The tracker that makes a client's input rounds records of `service`,
 * under the server key `server` evaluates to (the service carries the
 * records' code: a client reads only this tag and this member).
 *
 * @internal
 */
export const trackerOf = (
  service: Continuations.Service,
  server: Effect.Effect<string, McpError.McpClientError>
): Tracker => service.tracker(server)
