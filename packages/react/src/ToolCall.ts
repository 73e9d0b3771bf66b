/**
 * `useToolCall`: run a tool from a component, follow its progress and task
 * status, and cancel it. Cancelling interrupts the call's fiber, which sends
 * `notifications/cancelled` (or `tasks/cancel` for a task) to the server;
 * unmounting the component cancels a call still running.
 *
 * @since 0.2.0
 */
import type * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as React from "react"
import { useClient } from "./Client.js"
import { approvalWatch } from "./internal/approvalWatch.js"
import { valueOf } from "./RuntimeProvider.js"

/**
 * The call's status, in the words of the call history (`ToolCallLog.Status`):
 * `AwaitingApproval` (the `Approvals.layer` dialog is asking), `Running`,
 * then `Completed` (a result), `Failed` (a result with `isError: true`, or an
 * error), `Cancelled`, `Denied` or `TimedOut`.
 *
 * @since 0.2.0
 * @category models
 */
export type Status = "Idle" | ToolCallLog.Status

/**
 * @since 0.2.0
 * @category models
 */
export interface State {
  readonly status: Status
  /** The last progress notification of the running (or last) call. */
  readonly progress: McpSchema.ProgressNotificationParams | undefined
  /** The task's last status, for a call that runs as a task (terminal once the call has ended). */
  readonly task: McpSchema.Task | undefined
  /** The result; a tool that failed is a result with `isError: true`. */
  readonly result: McpSchema.CallToolResult | undefined
  /** Why the call did not produce a result (timeout, denial, lost connection...). */
  readonly error: McpError.McpClientError | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ToolCall extends State {
  /** Whether a client is there to call through (the provider's runtime may still be starting). */
  readonly ready: boolean
  /**
   * Starts a call (cancelling one still running); does nothing until `ready`.
   * Only the latest run sets the state: the interrupted run's exit never shows
   * "Cancelled" over the new run.
   */
  readonly run: (args?: Record<string, unknown>) => void
  /** Cancels the running call; nothing happens when none is running. */
  readonly cancel: () => void
  /** Back to `Idle`, cancelling a running call. */
  readonly reset: () => void
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options extends Omit<McpClient.CallToolOptions, "onProgress"> {
  /** The client to call through; default: the `McpClient` of the provider's Layer. */
  readonly client?: McpClient.Service | undefined
}

const idle: State = { status: "Idle", progress: undefined, task: undefined, result: undefined, error: undefined }

const terminalTask: ReadonlySet<McpSchema.Task["status"]> = new Set(["completed", "failed", "cancelled"])

/** The state once the call has ended; a task still shown as working follows the call's outcome. */
const ended = (previous: State, status: ToolCallLog.Status, error?: McpError.McpClientError): State => {
  const task = previous.task
  const taskStatus: McpSchema.Task["status"] = status === "Completed"
    ? "completed"
    : status === "Cancelled"
    ? "cancelled"
    : "failed"
  return {
    ...previous,
    status,
    error,
    task: task === undefined || terminalTask.has(task.status) ? task : { ...task, status: taskStatus }
  }
}

/**
 * @since 0.2.0
 * @category hooks
 */
export const useToolCall = (name: string, options?: Options): ToolCall => {
  const fromContext = useClient()
  const client = options?.client ?? valueOf(fromContext)
  const [state, setState] = React.useState<State>(idle)
  const fiber = React.useRef<Fiber.RuntimeFiber<void, McpError.McpClientError> | undefined>(undefined)
  // which run owns the state: a run (or reset) takes it, so an interrupted run's late events and exit change nothing
  const current = React.useRef(0)
  // the latest options without re-creating `run` on every render (inline objects are fine)
  const latest = React.useRef(options)
  latest.current = options

  const cancel = React.useCallback(() => {
    const running = fiber.current
    fiber.current = undefined
    if (running) Effect.runFork(Fiber.interrupt(running))
  }, [])

  const run = React.useCallback((args?: Record<string, unknown>) => {
    if (client === undefined) return
    cancel()
    const mine = ++current.current
    const update = (f: (previous: State) => State) => {
      if (current.current === mine) setState(f)
    }
    setState({ ...idle, status: "Running" })
    const { client: _, ...callOptions } = latest.current ?? {}
    const waiting = (awaiting: boolean) =>
      update((previous) =>
        previous.status === "Running" || previous.status === "AwaitingApproval" ?
          { ...previous, status: awaiting ? "AwaitingApproval" : "Running" } :
          previous
      )
    const started = Effect.runFork(
      client.callToolStream({ name, ...(args !== undefined ? { arguments: args } : {}) }, callOptions).pipe(
        Stream.runForEach((event) =>
          Effect.sync(() =>
            update((previous) => {
              switch (event._tag) {
                case "Progress":
                  return { ...previous, progress: event.progress }
                case "TaskStatus":
                  return { ...previous, task: event.task }
                case "Result":
                  return { ...previous, result: event.result }
              }
            })
          )
        ),
        Effect.locally(approvalWatch, waiting)
      )
    )
    fiber.current = started
    started.addObserver((exit) => {
      if (fiber.current === started) fiber.current = undefined
      update((previous) => {
        if (Exit.isSuccess(exit)) return ended(previous, previous.result?.isError === true ? "Failed" : "Completed")
        if (Cause.isInterruptedOnly(exit.cause)) return ended(previous, "Cancelled")
        const error = Cause.failureOption(exit.cause)
        return Option.isSome(error)
          ? ended(previous, ToolCallLog.statusOfError(error.value), error.value)
          : ended(previous, "Failed")
      })
    })
  }, [client, name, cancel])

  const reset = React.useCallback(() => {
    cancel()
    current.current++
    setState(idle)
  }, [cancel])

  React.useEffect(() => cancel, [cancel])

  return { ...state, ready: client !== undefined, run, cancel, reset }
}
