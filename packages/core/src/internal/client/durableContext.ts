/**
 * What every client holds of durable task handles: the `DurableTasks` tag
 * (by its key, so that a client without `DurableTasks.layer` carries none
 * of the records' code), the shape of the records the service hands a
 * client, the server's name in the app, and how a call's end is recorded
 * in the history. The records themselves are written and followed by
 * `durableTasks.ts`, reached only through the service.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import type * as DurableTasks from "../../DurableTasks.js"
import type * as McpClient from "../../McpClient.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import * as ToolCallLog from "../../ToolCallLog.js"
import type * as Tasks from "../tasks.js"

/**
 * The public module's tag, by its key (the public module is imported as a type only).
 *
 * @internal
 */
export const tag = Context.GenericTag<DurableTasks.DurableTasks, DurableTasks.Service>(
  "@mcp-effect/core/DurableTasks"
)

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
  /** Follows a task again by id (`McpClient.Service.resumeTask`). */
  readonly resume: (
    ctx: ClientContext,
    taskId: string,
    options?: Pick<McpClient.CallToolOptions, "maxTotalTimeout">
  ) => Stream.Stream<McpClient.CallToolEvent, McpError.McpClientError | DurableTasks.TaskNotFound>
  /** The records of a server without a stored result, oldest first. */
  readonly list: (server: string) => Effect.Effect<ReadonlyArray<DurableTasks.TaskRecord>>
}

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
