/**
 * `useTask`: the status of a task the server runs, polled at the server's
 * `pollInterval` (through the app's `TaskPolling` policy) until it is
 * terminal, and a way to cancel it (`tasks/cancel`).
 *
 * `useResumedTask`: a task-augmented call followed again by its task id
 * after a reload (`McpClient.Service.resumeTask`): its statuses, then its
 * result, with the call's history record completed, not duplicated. Keep
 * the id where a reload finds it (the URL, `sessionStorage`), or list the
 * calls still waiting with `client.durableTasks` (with core's
 * `DurableTasks.layer` in the client's context, as the hub's registry
 * gives it over its IndexedDB storage; without it there are no records,
 * and a task is followed by the id the app kept).
 *
 * @since 0.2.0
 */
import type * as DurableTasks from "@mcp-effect/core/DurableTasks"
import type * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as React from "react"
import { useClient } from "./Client.js"
import { valueOf } from "./RuntimeProvider.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface TaskView {
  /** The last status seen; `undefined` until the first poll answers. */
  readonly task: McpSchema.Task | undefined
  readonly error: McpError.McpClientError | undefined
  /** Asks the server to cancel the task; the status follows through polling. */
  readonly cancel: () => void
}

/** Cancels the task (its new status, or the error, shown by the hook that asked). */
const useCancel = (
  client: McpClient.Service | undefined,
  taskId: string | undefined,
  setTask: (task: McpSchema.Task) => void,
  setError: (error: McpError.McpClientError) => void
) =>
  React.useCallback(() => {
    if (client === undefined || taskId === undefined) return
    Effect.runFork(
      client.cancelTask(taskId).pipe(
        Effect.matchEffect({
          onFailure: (e) => Effect.sync(() => setError(e)),
          onSuccess: (status) => Effect.sync(() => setTask(status))
        })
      )
    )
  }, [client, taskId, setTask, setError])

/**
 * @since 0.2.0
 * @category hooks
 */
export const useTask = (taskId: string | undefined, client?: McpClient.Service): TaskView => {
  const fromContext = useClient()
  const resolved = client ?? valueOf(fromContext)
  const [task, setTask] = React.useState<McpSchema.Task | undefined>(undefined)
  const [error, setError] = React.useState<McpError.McpClientError | undefined>(undefined)

  React.useEffect(() => {
    setTask(undefined)
    setError(undefined)
    if (resolved === undefined || taskId === undefined) return
    const fiber = Effect.runFork(
      resolved.taskStatus(taskId).pipe(
        Stream.runForEach((status) => Effect.sync(() => setTask(status))),
        Effect.catchAll((e) => Effect.sync(() => setError(e)))
      )
    )
    return () => void Effect.runFork(Fiber.interrupt(fiber))
  }, [resolved, taskId])

  const cancel = useCancel(resolved, taskId, setTask, setError)

  return { task, error, cancel }
}

/**
 * @since 0.4.0
 * @category models
 */
export interface ResumedTaskView {
  /** The last status seen; `undefined` until the first `tasks/get` answers. */
  readonly task: McpSchema.Task | undefined
  /** The call's result, once the task has one (checked against the tool's `outputSchema`). */
  readonly result: McpSchema.CallToolResult | undefined
  /** `TaskNotFound` when the server does not know the id (it expired, say). */
  readonly error: McpError.McpClientError | DurableTasks.TaskNotFound | undefined
  /** Asks the server to cancel the task (once, however many tabs or processes ask). */
  readonly cancel: () => void
}

/**
 * Reattaches to a task-augmented call by its task id: follows its status
 * until it ends, then shows its result. Unmounting stops following; the
 * task runs on (only `cancel` cancels it), so a reload attaches again.
 *
 * @since 0.4.0
 * @category hooks
 */
export const useResumedTask = (taskId: string | undefined, client?: McpClient.Service): ResumedTaskView => {
  const fromContext = useClient()
  const resolved = client ?? valueOf(fromContext)
  const [task, setTask] = React.useState<McpSchema.Task | undefined>(undefined)
  const [result, setResult] = React.useState<McpSchema.CallToolResult | undefined>(undefined)
  const [error, setError] = React.useState<ResumedTaskView["error"]>(undefined)

  React.useEffect(() => {
    setTask(undefined)
    setResult(undefined)
    setError(undefined)
    if (resolved === undefined || taskId === undefined) return
    const fiber = Effect.runFork(
      resolved.resumeTask(taskId).pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            if (event._tag === "TaskStatus") setTask(event.task)
            else if (event._tag === "Result") setResult(event.result)
          })
        ),
        Effect.catchAll((e) => Effect.sync(() => setError(e)))
      )
    )
    return () => void Effect.runFork(Fiber.interrupt(fiber))
  }, [resolved, taskId])

  const cancel = useCancel(resolved, taskId, setTask, setError)

  return { task, result, error, cancel }
}
