/**
 * What every client holds of durable task handles: the `DurableTasks` tag
 * (by its key, so that a client without `DurableTasks.layer` carries none
 * of the records' code), the shape of the records the service hands a
 * client, the server's name in the app, and how a call's end is recorded
 * in the history. The records themselves are written by `durableTasks.ts`,
 * reached only through the service.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as ClientSession from "../../ClientSession.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import * as ToolCallLog from "../../ToolCallLog.js"
import type { TaskNotFound } from "./taskNotFound.js"
import type { TaskRecord } from "./taskRecord.js"
import type * as Tasks from "./tasks.js"

/**
 * What a client asks of the `DurableTasks` service: the records, for the
 * call history of the client's context (`DurableTasks.Service.client`).
 *
 * @internal
 */
export interface RecordsSource {
  readonly client: (log: ToolCallLog.Service | undefined) => Records
}

/**
 * The public module's tag, by its key: the client reads only `client` of
 * the service, so this module needs nothing of the public one.
 *
 * @internal
 */
export const tag = Context.GenericTag<RecordsSource>("@mcp-effect/core/DurableTasks")

/**
 * What the task and tool-call paths of a client read of it.
 *
 * @internal
 */
export interface ClientContext extends Tasks.TaskContext {
  /** `McpClient.Options.server`; the server's own name when absent. */
  readonly server: string | undefined
}

/**
 * The records of one client's task-augmented calls (its call history is
 * the `ToolCallLog` of its context, if any).
 *
 * @internal
 */
export interface Records {
  /** Writes the record of a task the call has just created. */
  readonly remember: (start: {
    readonly server: string
    readonly tool: string
    readonly historyId: string | undefined
    readonly task: McpSchema.Task
  }) => Effect.Effect<void>
  /** Records a status of the task (any process following it). */
  readonly observe: (server: string, task: McpSchema.Task) => Effect.Effect<void>
  /** Whether this process sends `tasks/cancel` for the task (the first to claim it). */
  readonly claimCancel: (server: string, taskId: string) => Effect.Effect<boolean>
  /**
   * After a call with a task ended: a task the server may still run keeps
   * its record (`history` is told how the call ended); otherwise the first
   * process to settle it completes the history and removes the record.
   */
  readonly ended: (
    server: string,
    taskId: string,
    exit: Exit.Exit<McpSchema.CallToolResult, McpError.McpClientError>,
    history: (update: ToolCallLog.Update) => Effect.Effect<void>
  ) => Effect.Effect<void>
  /** `tasks/cancel`, sent once across processes. */
  readonly cancel: (
    ctx: ClientContext,
    taskId: string,
    options?: ClientSession.RequestOptions
  ) => Effect.Effect<McpSchema.Task, McpError.McpClientError>
  /** The records of a server without a stored result, oldest first. */
  readonly list: (server: string) => Effect.Effect<ReadonlyArray<TaskRecord>>
  /** The call history a resumed call completes. */
  readonly log: ToolCallLog.Service | undefined
  /** The record of a task, if any. */
  readonly find: (server: string, taskId: string) => Effect.Effect<TaskRecord | undefined>
  /**
   * Whether this process completes the call: the one that marks the record
   * `done` first. A process that wrote or read the record (`known`) and
   * finds it gone lost to another; one that never had a record completes
   * its own call.
   */
  readonly settle: (server: string, taskId: string, known: boolean) => Effect.Effect<boolean>
  /** Removes a settled record. */
  readonly forget: (server: string, taskId: string) => Effect.Effect<void>
}

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
 * The server's name in the app: the client's `server` option, or the name it gives in `initialize`.
 *
 * @internal
 */
export const serverName = (
  ctx: { readonly server: string | undefined; readonly session: () => ClientSession.Service }
): Effect.Effect<string, McpError.McpClientError> =>
  Effect.suspend(() =>
    ctx.server !== undefined ?
      Effect.succeed(ctx.server) :
      Effect.map(ctx.session().initialized, (init) => init.serverInfo.name)
  )

/**
 * The history update for how a call ended.
 *
 * @internal
 */
export const outcomeOf = (
  exit: Exit.Exit<McpSchema.CallToolResult, McpError.McpClientError | TaskNotFound>
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
