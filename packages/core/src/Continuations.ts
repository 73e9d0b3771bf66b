/**
 * Durable multi-round-trip requests (2026-07-28). When a `tools/call`,
 * `prompts/get` or `resources/read` is answered `input_required` and a
 * `Continuations` service is in the client's context, the waiting request is
 * a record in a `SharedStore` collection: the server key, the method and
 * original params, the server's `requestState`, the pending input requests,
 * who may answer, the round, when it expires, its state and, once there is
 * one, the result. On Redis the records are shared by every process, on
 * IndexedDB by every tab and reload, with the Node file store on disk.
 *
 * - The process that made the call answers with its `Elicitation`,
 *   `Sampling` and `Roots` handlers as without the service, but claims the
 *   record (`Pending` → `Answered`, one compare-and-set) before it sends the
 *   retry. Without a handler for a request, it waits for an `answer`.
 * - Any process, or the same app after a restart or reload, `list`s pending
 *   continuations and `answer`s one through its own client for that server:
 *   the same compare-and-set, so exactly one answer is sent; a second one
 *   fails with `ContinuationAlreadyAnswered`. If the original caller is
 *   alive, its handler is interrupted and its call completes with the
 *   result the answering process stores.
 * - A further `input_required` round moves the same record to its next
 *   round, pending again.
 * - A pending record expires `ttl` after its round began: the caller's call
 *   fails with `RequestCancelled`, an `answer` with `ContinuationExpired`
 *   (an answered one whose outcome is not stored `ttl` after the answer
 *   fails the waiting call with `OutcomeUnknown`). `expire`
 *   gives one up now, and `cleanup` removes the records that are done or
 *   expired. Interrupting the caller leaves its record pending (a restarted
 *   app finds it again); `expire` it to give it up.
 *
 * A server's `requestState` and input requests are bounded
 * (`maxRequestStateLength`, `maxInputRequestsLength`): a larger one fails the
 * call with a `DecodeError` (`TooLarge`) and nothing is stored. No secret is
 * stored: a `Redacted` identity is kept as its SHA-256 digest.
 *
 * The store is the record of truth: a store failure while the calling
 * process writes or watches its record is a defect of the call (it cannot
 * know whether another process answered); `list`, `answer`, `expire` and
 * `cleanup` fail with the store's `PlatformError`.
 *
 * The 2025 era's server-to-client requests (`elicitation/create` sent on
 * the session) live on one connection and are not durable: only the
 * 2026-07-28 era's `input_required` rounds are.
 *
 * @since 0.4.0
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as hooks from "./internal/policy/continuationHooks.js"
import * as internal from "./internal/policy/continuations.js"
import type * as McpError from "./McpError.js"
import * as SharedStore from "./SharedStore.js"

export {
  /**
   * The continuation was answered already (by this process or another):
   * exactly one answer is sent to the server.
   *
   * @since 0.4.0
   * @category errors
   */
  ContinuationAlreadyAnswered,
  /**
   * The continuation expired (or was given up with `expire`) before it was
   * answered.
   *
   * @since 0.4.0
   * @category errors
   */
  ContinuationExpired,
  /**
   * The identity given to `answer` is not the one the continuation was made
   * for.
   *
   * @since 0.4.0
   * @category errors
   */
  ContinuationForbidden,
  /**
   * No continuation has this id (never made, or removed by `cleanup`).
   *
   * @since 0.4.0
   * @category errors
   */
  ContinuationNotFound
} from "./internal/policy/continuations.js"

/**
 * The state of a continuation: `Pending` (waiting for input), `Answered`
 * (one answer claimed it; its retry is in flight), `Completed` or `Failed`
 * (the request's outcome is stored), `Expired`.
 *
 * @since 0.4.0
 * @category models
 */
export const State: Schema.Literal<["Pending", "Answered", "Completed", "Failed", "Expired"]> = internal.State

/**
 * @since 0.4.0
 * @category models
 */
export type State = typeof State.Type

/**
 * A continuation as stored (schema-encoded JSON in the `SharedStore`).
 *
 * @since 0.4.0
 * @category models
 */
export const Continuation = internal.Continuation

/**
 * @since 0.4.0
 * @category models
 */
export interface Continuation extends Schema.Schema.Type<typeof internal.Continuation> {}

/**
 * Who may answer a continuation: an id the app gives (a user id, a
 * session), stored as is, or a `Redacted` secret, stored as its SHA-256
 * digest only.
 *
 * @since 0.4.0
 * @category models
 */
export type Identity = string | Redacted.Redacted<string>

/**
 * What `answer` sends the retry through: an `McpClient` for the
 * continuation's server (anything with its `session.request`).
 *
 * @since 0.4.0
 * @category models
 */
export interface Sender {
  readonly session: {
    readonly request: (
      method: string,
      params: { readonly [key: string]: unknown } | undefined
    ) => Effect.Effect<unknown, McpError.McpClientError>
  }
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Filter {
  /** Only this server's (the server key). */
  readonly server?: string | undefined
  /** Only those made for this identity. */
  readonly identity?: Identity | undefined
  /** Default `Pending`. */
  readonly state?: State | "All" | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface AnswerOptions {
  /** The client for the continuation's server, in this process. */
  readonly client: Sender
  /** Required when the continuation was made for an identity. */
  readonly identity?: Identity | undefined
}

/**
 * The errors of `answer`: the continuation's own, the store's, and the
 * retry's.
 *
 * @since 0.4.0
 * @category errors
 */
export type AnswerError =
  | internal.ContinuationNotFound
  | internal.ContinuationAlreadyAnswered
  | internal.ContinuationExpired
  | internal.ContinuationForbidden
  | PlatformError.PlatformError
  | McpError.McpClientError

/**
 * @since 0.4.0
 * @category models
 */
export interface Service {
  /**
   * What a client built with this service calls once, with its server's
   * name: follows its requests' input rounds as records of this service.
   *
   * @internal
   */
  readonly tracker: (server: Effect.Effect<string, McpError.McpClientError>) => hooks.Tracker
  /** The continuations, oldest first (`Pending` ones unless `filter.state` says otherwise). */
  readonly list: (filter?: Filter) => Effect.Effect<ReadonlyArray<Continuation>, PlatformError.PlatformError>
  readonly get: (id: string) => Effect.Effect<Option.Option<Continuation>, PlatformError.PlatformError>
  /**
   * Answers a pending continuation with the responses to its input requests
   * (keyed as in `inputRequests`): claims it (one compare-and-set), sends
   * the original request again with `inputResponses` and the echoed
   * `requestState` through `options.client`, stores the outcome, and
   * succeeds with the result (the raw JSON result of the method). A further
   * `input_required` round is stored as the same record's next round, and
   * this effect waits for it to be answered (by this process's handlers or
   * another `answer`).
   */
  readonly answer: (
    id: string,
    responses: { readonly [key: string]: unknown },
    options: AnswerOptions
  ) => Effect.Effect<unknown, AnswerError>
  /** Gives a pending continuation up (`Expired`); whether it did. */
  readonly expire: (id: string) => Effect.Effect<boolean, PlatformError.PlatformError>
  /**
   * Removes the continuations that are done (`Completed`, `Failed`,
   * `Expired`) or were left pending a further `ttl` past their expiry;
   * succeeds with how many.
   */
  readonly cleanup: Effect.Effect<number, PlatformError.PlatformError>
  /** The continuations that change from now on, in this process or (on a shared store) another. */
  readonly changes: Effect.Effect<
    Stream.Stream<Continuation, PlatformError.PlatformError>,
    PlatformError.PlatformError,
    Scope.Scope
  >
}

/**
 * @since 0.4.0
 * @category tags
 */
export class Continuations extends Context.Tag("@mcp-effect/core/Continuations")<Continuations, Service>() {}

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** How long a round waits for an answer, in milliseconds. Default 10 minutes. */
  readonly ttl?: number | undefined
  /** The `SharedStore` collection. Default `mcp-continuations`. */
  readonly collection?: string | undefined
  /** The longest `requestState` stored, in characters. Default 65536. */
  readonly maxRequestStateLength?: number | undefined
  /** The longest input requests stored, in characters of JSON. Default 262144. */
  readonly maxInputRequestsLength?: number | undefined
}

/**
 * The service over a `SharedStore`. A `ToolCallLog` in the context is
 * updated by whichever process completes a tool call.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make: (store: SharedStore.Service, options?: Options) => Effect.Effect<Service> = internal.make

/**
 * The service over the `SharedStore` of the context.
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Continuations, never, SharedStore.SharedStore> =>
  Layer.effect(Continuations, Effect.flatMap(SharedStore.SharedStore, (store) => internal.make(store, options)))

/**
 * The service over the `SharedStore` of the context, or else one over its
 * `KeyValueStore` (one process only: see `SharedStore.fromKeyValueStore`).
 *
 * @since 0.4.0
 * @category layers
 */
export const layerKeyValueStore = (
  options?: Options
): Layer.Layer<Continuations, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(Continuations, Effect.flatMap(SharedStore.fromContext, (store) => internal.make(store, options)))

/**
 * The service in memory, for tests and single-process apps.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerMemory = (options?: Options): Layer.Layer<Continuations> =>
  Layer.provide(layer(options), SharedStore.layerMemory)

/**
 * The identity the continuations made in `effect` are for: only an `answer`
 * with the same identity may answer them.
 *
 * @since 0.4.0
 * @category combinators
 */
export const withIdentity: {
  (identity: Identity): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, identity: Identity): Effect.Effect<A, E, R>
} = /* @__PURE__ */ dual(
  2,
  <A, E, R>(effect: Effect.Effect<A, E, R>, identity: Identity) =>
    Effect.locally(effect, hooks.currentIdentity, identity)
)

/**
 * The identity set by `withIdentity`.
 *
 * @since 0.4.0
 * @category references
 */
export const currentIdentity: FiberRef.FiberRef<Identity | undefined> = hooks.currentIdentity
