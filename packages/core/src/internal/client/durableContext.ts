/**
 * What every client holds of the durable task handles: the `SharedStore`
 * of its context (read by its key, so that a client without one carries
 * none of the store's code) and how a call's end is recorded. The records
 * themselves are written and followed by `durableTasks.ts`.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as DurableTasks from "../../DurableTasks.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as SharedStore from "../../SharedStore.js"
import * as ToolCallLog from "../../ToolCallLog.js"

const sharedStoreTag = Context.GenericTag<SharedStore.SharedStore, SharedStore.Service>("@mcp-effect/core/SharedStore")

/**
 * Where a client keeps its task records (its `SharedStore`), and the call
 * history it completes.
 *
 * @internal
 */
export interface Stores {
  readonly shared: SharedStore.Service
  readonly log: ToolCallLog.Service | undefined
}

/**
 * The stores of the context; `undefined` without a `SharedStore`.
 *
 * @internal
 */
export const fromContext: Effect.Effect<Stores | undefined> = Effect.map(
  Effect.all([Effect.serviceOption(sharedStoreTag), Effect.serviceOption(ToolCallLog.ToolCallLog)]),
  ([shared, log]) => Option.isNone(shared) ? undefined : { shared: shared.value, log: Option.getOrUndefined(log) }
)

/**
 * Whether a call that ended so is over on the server too: a result, the
 * server's own error or cancellation, an interrupt (which cancels the task).
 * After a lost connection, a timeout or an expired session, the task may
 * still run: its record stays, to be resumed.
 *
 * @internal
 */
export const isSettled = <E extends { readonly _tag: string }>(exit: Exit.Exit<unknown, E>): boolean =>
  Exit.match(exit, {
    onSuccess: () => true,
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onNone: () => true,
        onSome: (error) =>
          !(error._tag === "TransportError" || error._tag === "RequestTimeout" || error._tag === "SessionExpired" ||
            error._tag === "OutcomeUnknown" || error._tag === "Unauthorized" || error._tag === "InsufficientScope")
      })
  })

/**
 * The history update for how a call ended.
 *
 * @internal
 */
export const outcomeOf = (
  exit: Exit.Exit<McpSchema.CallToolResult, McpError.McpClientError | DurableTasks.TaskNotFound>
): ToolCallLog.Update =>
  Exit.match(exit, {
    onSuccess: (result) => ({ status: result.isError === true ? "Failed" : "Completed", result }),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onSome: (error) => ({
          status: error._tag === "TaskNotFound" ? "Failed" : ToolCallLog.statusOfError(error),
          error: { _tag: error._tag, message: error.message }
        }),
        onNone: () =>
          Cause.isInterruptedOnly(cause) ?
            { status: "Cancelled" } :
            { status: "Failed", error: { _tag: "Defect", message: Cause.pretty(cause) } }
      })
  })
