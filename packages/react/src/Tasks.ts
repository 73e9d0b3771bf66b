/**
 * `useTask`: the status of a task the server runs, polled at the server's
 * `pollInterval` (through the app's `TaskPolling` policy) until it is
 * terminal, and a way to cancel it (`tasks/cancel`).
 *
 * @since 0.2.0
 */
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

  const cancel = React.useCallback(() => {
    if (resolved === undefined || taskId === undefined) return
    Effect.runFork(
      resolved.cancelTask(taskId).pipe(
        Effect.matchEffect({
          onFailure: (e) => Effect.sync(() => setError(e)),
          onSuccess: (status) => Effect.sync(() => setTask(status))
        })
      )
    )
  }, [resolved, taskId])

  return { task, error, cancel }
}
