/**
 * Tasks as the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`)
 * has them: a server may answer a request the method table marks
 * `taskHandle` (`tools/call`) with a task handle
 * (`resultType: "task"`) instead of the result. The client polls `tasks/get`
 * at the task's `pollIntervalMs` (bounded by the `TaskPolling` service),
 * answers the `inputRequests` of an `input_required` task once each with
 * `tasks/update` (the same `Elicitation` / `Sampling` / `Roots` handlers as
 * multi-round-trip requests), and returns the task's `result`, or fails with
 * its `error` (`ProtocolError`) or `RequestCancelled`. Interrupting the
 * caller sends `tasks/cancel`. The caller sees a plain result either way.
 * A client that set a hook (`taskHandleHook.ts`) is told each state of the
 * task, and decides how the interrupt's `tasks/cancel` is sent.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Schema from "effect/Schema"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import type * as TaskPolling from "../../TaskPolling.js"
import { checker } from "../engine/decode.js"
import type * as SessionModel from "../engine/sessionModel.js"
import { answer } from "./inputRounds.js"
import * as TaskHandleHook from "./taskHandleHook.js"

/** A task as `tasks/get` (and the handle) describe it in the extension. */
const ExtensionTask = Schema.Struct({
  taskId: Schema.String,
  status: Schema.String,
  statusMessage: Schema.optional(Schema.String),
  createdAt: Schema.optional(Schema.String),
  lastUpdatedAt: Schema.optional(Schema.String),
  ttlMs: Schema.optional(Schema.NullOr(Schema.Number)),
  pollIntervalMs: Schema.optional(Schema.Number),
  inputRequests: Schema.optional(Schema.Record({ key: Schema.String, value: McpSchema.InputRequest })),
  result: Schema.optional(McpSchema.JsonObject),
  error: Schema.optional(Schema.Struct({
    code: Schema.Number,
    message: Schema.String,
    data: Schema.optional(Schema.Unknown)
  }))
})
/** @internal */
export type ExtensionTask = typeof ExtensionTask.Type

const decodeTask = checker(ExtensionTask)

/** How long `tasks/cancel` may take when the caller gives up. */
const cancelMillis = 5_000

const isTaskHandle = (raw: unknown): boolean =>
  typeof raw === "object" && raw !== null && (raw as { resultType?: unknown }).resultType === "task"

const statuses: ReadonlyArray<string> = ["working", "input_required", "completed", "failed", "cancelled"]

/**
 * A task of the extension as `McpSchema.Task` (the shape of `TaskStatus`
 * events and task records): a status the 2025 schema does not name is
 * `working`, a missing time is `now`.
 *
 * @internal
 */
export const toTask = (task: ExtensionTask, now: number): McpSchema.Task => {
  const at = new Date(now).toISOString()
  return {
    taskId: task.taskId,
    status: statuses.includes(task.status) ? task.status as McpSchema.TaskStatus : "working",
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt ?? at,
    lastUpdatedAt: task.lastUpdatedAt ?? at,
    ttl: task.ttlMs ?? null,
    ...(task.pollIntervalMs !== undefined ? { pollInterval: task.pollIntervalMs } : {})
  }
}

/**
 * A task handle or `tasks/get` answer, decoded.
 *
 * @internal
 */
export const decoded = (method: string, raw: unknown): Effect.Effect<ExtensionTask, McpError.DecodeError> => {
  const task = decodeTask(raw)
  return task._tag === "Right" ?
    Effect.succeed(task.right) :
    Effect.fail(new McpError.DecodeError({ reason: "Schema", method, message: `invalid task: ${task.left}` }))
}

const delayOf = (polling: TaskPolling.Service, task: ExtensionTask) =>
  Duration.clamp(
    task.pollIntervalMs === undefined ? polling.defaultPollInterval : Duration.millis(task.pollIntervalMs),
    { minimum: polling.minPollInterval, maximum: polling.maxPollInterval }
  )

/**
 * The result of `raw`: itself, or, for a task handle, the task's outcome.
 *
 * @internal
 */
export const follow = (
  method: string,
  raw: unknown,
  request: SessionModel.Service["request"],
  handlers: ReadonlyMap<string, SessionModel.ServerRequestHandler>,
  polling: TaskPolling.Service
): Effect.Effect<unknown, McpError.McpClientError> => {
  if (!isTaskHandle(raw)) return Effect.succeed(raw)
  return Effect.flatMap(Effect.zip(FiberRef.get(TaskHandleHook.current), decoded(method, raw)), ([hook, handle]) => {
    const taskId = handle.taskId
    const answered = new Set<string>()
    // each state to the client's hook (task records, history, `TaskStatus` events), if it set one
    const seen = (task: ExtensionTask): Effect.Effect<ExtensionTask> =>
      hook === undefined ?
        Effect.succeed(task) :
        Effect.as(Effect.flatMap(Clock.currentTimeMillis, (now) => hook.status(toTask(task, now))), task)

    const step = (task: ExtensionTask): Effect.Effect<unknown, McpError.McpClientError> => {
      switch (task.status) {
        case "completed":
          return task.result !== undefined ?
            Effect.succeed(task.result) :
            Effect.fail(
              new McpError.DecodeError({
                reason: "Schema",
                method,
                message: `task ${taskId} completed without a result`
              })
            )
        case "failed":
          return Effect.fail(
            new McpError.ProtocolError({
              code: task.error?.code ?? McpError.ErrorCode.InternalError,
              message: task.error?.message ?? task.statusMessage ?? `task ${taskId} failed`,
              method,
              ...(task.error?.data !== undefined ? { data: task.error.data } : {})
            })
          )
        case "cancelled":
          return Effect.fail(
            new McpError.RequestCancelled({ method, reason: task.statusMessage ?? `task ${taskId} was cancelled` })
          )
        default: {
          // each question once: a key the server still lists after it was answered is not asked again
          const open = Object.fromEntries(
            Object.entries(task.status === "input_required" ? task.inputRequests ?? {} : {}).filter(([key]) =>
              !answered.has(key)
            )
          )
          const update = Object.keys(open).length === 0 ? Effect.void : answer(method, open, handlers).pipe(
            Effect.tap(() => Effect.sync(() => Object.keys(open).forEach((key) => answered.add(key)))),
            Effect.flatMap((inputResponses) => request("tasks/update", { taskId, inputResponses }))
          )
          return update.pipe(
            Effect.zipRight(Effect.sleep(delayOf(polling, task))),
            Effect.zipRight(request("tasks/get", { taskId })),
            Effect.flatMap((next) => decoded("tasks/get", next)),
            Effect.flatMap(seen),
            Effect.flatMap(step)
          )
        }
      }
    }

    const cancel = request("tasks/cancel", { taskId })
    return Effect.flatMap(seen(handle), step).pipe(
      Effect.onInterrupt(() =>
        // bounded: an interrupt never hangs on a server that does not answer (interruptible inside the finalizer)
        Effect.interruptible(hook === undefined ? cancel : hook.cancel(taskId, cancel)).pipe(
          Effect.timeoutOption(cancelMillis),
          Effect.ignore
        )
      )
    )
  })
}
