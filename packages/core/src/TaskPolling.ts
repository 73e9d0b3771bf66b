/**
 * How task-augmented requests are followed: `tasks/get` is polled at the
 * server's `pollInterval` (clamped to sane bounds) through a `Schedule`.
 *
 * A task-augmented call also leaves a durable `TaskRecord` when the client
 * has a `SharedStore` (or a `KeyValueStore`) in its context, so that the
 * task can be followed again by id (`McpClient.Service.resumeTask`) after a
 * restart or from another process sharing the store.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Used when the server gives no `pollInterval`. */
  readonly defaultPollInterval: Duration.Duration
  readonly minPollInterval: Duration.Duration
  readonly maxPollInterval: Duration.Duration
  /** The `ttl` (ms) requested for new tasks, if any. */
  readonly ttl: number | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class TaskPolling extends Context.Tag("@mcp-effect/core/TaskPolling")<TaskPolling, Service>() {}

/**
 * Default 1 s when the server is silent, clamped to 50 ms – 30 s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaults: Service = {
  defaultPollInterval: Duration.seconds(1),
  minPollInterval: Duration.millis(50),
  maxPollInterval: Duration.seconds(30),
  ttl: undefined
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: {
    readonly defaultPollInterval?: Duration.DurationInput | undefined
    readonly minPollInterval?: Duration.DurationInput | undefined
    readonly maxPollInterval?: Duration.DurationInput | undefined
    readonly ttl?: number | undefined
  }
): Layer.Layer<TaskPolling> =>
  Layer.succeed(TaskPolling, {
    defaultPollInterval: Duration.decode(options.defaultPollInterval ?? defaults.defaultPollInterval),
    minPollInterval: Duration.decode(options.minPollInterval ?? defaults.minPollInterval),
    maxPollInterval: Duration.decode(options.maxPollInterval ?? defaults.maxPollInterval),
    ttl: options.ttl
  })

/**
 * The delay before the next poll, given the last task status.
 *
 * @since 0.1.0
 * @category utils
 */
export const delay = (service: Service, task: McpSchema.Task): Duration.Duration =>
  Duration.clamp(
    task.pollInterval === undefined ? service.defaultPollInterval : Duration.millis(task.pollInterval),
    { minimum: service.minPollInterval, maximum: service.maxPollInterval }
  )

/**
 * Recurs after every non-terminal status, waiting the task's `pollInterval`.
 *
 * @since 0.1.0
 * @category utils
 */
export const schedule = (service: Service): Schedule.Schedule<McpSchema.Task, McpSchema.Task> =>
  Schedule.identity<McpSchema.Task>().pipe(
    Schedule.whileInput((task: McpSchema.Task) => !isTerminal(task.status)),
    Schedule.addDelay((task) => delay(service, task))
  )

/**
 * @since 0.1.0
 * @category utils
 */
export const isTerminal = (status: McpSchema.TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/**
 * The durable record of a task-augmented call, kept in the `SharedStore`
 * collection `"mcp-effect/tasks/task"` from the task's creation until its
 * result is stored: the server (its name in the app), the tool and its
 * arguments (strings redacted of URL credentials and queries; left out,
 * with `argumentsOmitted`, when they encode to more than 8 KiB), the id of
 * its `ToolCallLog` record, the last status seen by any process, and
 * whether a process has sent `tasks/cancel` for it. `done` is set by the one
 * process that completes the call (compare-and-set), just before the
 * record is removed.
 *
 * @since 0.4.0
 * @category schemas
 */
export const TaskRecord = Schema.Struct({
  server: Schema.String,
  taskId: Schema.String,
  tool: Schema.String,
  arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  argumentsOmitted: Schema.optional(Schema.Boolean),
  historyId: Schema.optional(Schema.String),
  status: McpSchema.TaskStatus,
  statusMessage: Schema.optional(Schema.String),
  createdAt: Schema.DateTimeUtcFromNumber,
  updatedAt: Schema.DateTimeUtcFromNumber,
  cancelRequested: Schema.Boolean,
  done: Schema.Boolean
})

/**
 * @since 0.4.0
 * @category models
 */
export interface TaskRecord extends Schema.Schema.Type<typeof TaskRecord> {}

/**
 * The server does not know the task (`tasks/get` answered "invalid params",
 * as the spec has servers answer for an unknown or expired task id).
 *
 * @since 0.4.0
 * @category errors
 */
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>("@mcp-effect/core/TaskNotFound")(
  "TaskNotFound",
  {
    server: Schema.String,
    taskId: Schema.String,
    message: Schema.String
  }
) {}
