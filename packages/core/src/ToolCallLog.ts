/**
 * A history of tool calls. With this service in the context of
 * `McpClient.make` / `McpClient.layer`, every `callTool` and `callToolStream`
 * becomes a record that follows the call (awaiting approval, denied,
 * running with its task and last progress, then its outcome). Records are
 * kept one per record (schema-encoded) up to a retention limit, and offered
 * as a `Subscribable` for UIs.
 *
 * Stored in the `SharedStore` of the context when there is one (the hub's
 * Node file store and the Redis store provide one): processes sharing it
 * write their records side by side, lose none, and each one's `records`
 * follows the others' calls live (Redis: milliseconds; files: well under a
 * second). Without one, in a `SharedStore` over the `KeyValueStore`
 * (`SharedStore.fromKeyValueStore`): for one process.
 *
 * Errors are stored as their tag and message only; arguments and results are
 * stored as given, so keep secrets out of tool arguments or use a store that
 * encrypts.
 *
 * @since 0.2.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Subscribable from "effect/Subscribable"
import * as keyValueStore from "./internal/platform/keyValueStore.js"
import * as origin from "./internal/policy/origin.js"
import * as internal from "./internal/policy/toolCallLog.js"
import type * as McpError from "./McpError.js"

/**
 * `AwaitingApproval` → `Denied`, or (`AwaitingApproval` →) `Running` →
 * `Completed` (a result) / `Failed` (a result with `isError: true`, kept in
 * `result`; or an error, e.g. a result that does not match the tool's
 * `outputSchema`) / `Cancelled` (interrupted, or cancelled by the server) /
 * `TimedOut`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Status = internal.Status

/**
 * @since 0.2.0
 * @category models
 */
export type Status = typeof Status.Type

/**
 * Who made a call, when it was not the app's own code or its model: `App`,
 * an MCP App's UI (the `ui://` resource it was rendered from).
 *
 * @since 0.4.0
 * @category schemas
 */
export const Origin = origin.Origin

/**
 * @since 0.4.0
 * @category models
 */
export type Origin = typeof Origin.Type

/**
 * The origin the calls of the current fiber are recorded with (`undefined`
 * by default). Set it around a call with `withOrigin`.
 *
 * @since 0.4.0
 * @category fiber refs
 */
export const currentOrigin: FiberRef.FiberRef<Origin | undefined> = origin.currentOrigin

/**
 * Runs `effect` with its tool calls recorded as made by `origin`.
 *
 * @since 0.4.0
 * @category combinators
 */
export const withOrigin: {
  (origin: Origin): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, origin: Origin): Effect.Effect<A, E, R>
} = /* @__PURE__ */ dual(
  2,
  <A, E, R>(effect: Effect.Effect<A, E, R>, origin: Origin) => Effect.locally(effect, currentOrigin, origin)
)

/**
 * The record of one call: server, tool, arguments, status, the task's id
 * and status for task-augmented calls, the last progress, timestamps from
 * the `Clock`, the result or the error (its `_tag` and `message` only), and
 * its `origin` when an MCP App's UI made it.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ToolCallRecord = internal.ToolCallRecord

/**
 * @since 0.2.0
 * @category models
 */
export interface ToolCallRecord extends Schema.Schema.Type<typeof internal.ToolCallRecord> {}

/**
 * What a record starts with.
 *
 * @since 0.2.0
 * @category models
 */
export interface Start {
  readonly server: string
  readonly tool: string
  readonly arguments?: { readonly [key: string]: unknown } | undefined
  readonly status: Status
  /** Default: `currentOrigin` of the fiber that starts the record. */
  readonly origin?: Origin | undefined
}

/**
 * A change to a record; `updatedAt` (and `endedAt` for a final status) are
 * set from the `Clock`.
 *
 * @since 0.2.0
 * @category models
 */
export type Update = Partial<Pick<ToolCallRecord, "status" | "taskId" | "taskStatus" | "progress" | "result" | "error">>

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The retained records, oldest first. */
  readonly records: Subscribable.Subscribable<ReadonlyArray<ToolCallRecord>>
  /** Starts a record and returns its id. */
  readonly start: (start: Start) => Effect.Effect<string>
  /** Changes a record; unknown (evicted) ids are ignored. */
  readonly update: (id: string, update: Update) => Effect.Effect<void>
  /** Removes every record. */
  readonly clear: Effect.Effect<void>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class ToolCallLog extends Context.Tag("@mcp-effect/core/ToolCallLog")<ToolCallLog, Service>() {}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** How many records are kept; the oldest go first. Default 1000. */
  readonly retention?: number | undefined
  /** Key prefix in the store. Default `"mcp-effect/tool-calls/"`. */
  readonly prefix?: string | undefined
}

/**
 * Loads the retained records from the store, then keeps it up to date and
 * follows the changes other processes make to it. A
 * store that fails is logged, and the history in memory stays right; a
 * stored record that no longer decodes is skipped.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (
  options?: Options
) => Effect.Effect<Service, never, KeyValueStore.KeyValueStore | Scope.Scope> = internal.make

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<ToolCallLog, never, KeyValueStore.KeyValueStore> =>
  Layer.scoped(ToolCallLog, make(options))

/**
 * A log kept in memory (for tests, or apps that need no history across runs).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory = (options?: Options): Layer.Layer<ToolCallLog> =>
  Layer.provide(layer(options), keyValueStore.layerMemory)

/**
 * Whether a status is final.
 *
 * @since 0.2.0
 * @category utils
 */
export const isFinal = (status: Status): boolean => status !== "AwaitingApproval" && status !== "Running"

/**
 * The status a call ended with when it failed with `error`: `TimedOut`,
 * `Cancelled`, `Denied` (approval), or `Failed`.
 *
 * @since 0.3.0
 * @category utils
 */
export const statusOfError = (error: McpError.McpClientError): Status =>
  error._tag === "RequestTimeout" ?
    "TimedOut" :
    error._tag === "RequestCancelled" ?
    "Cancelled" :
    error._tag === "ApprovalDenied" ?
    "Denied" :
    "Failed"
