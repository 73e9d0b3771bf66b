/**
 * How task-augmented requests are followed: `tasks/get` is polled at the
 * server's `pollInterval` (clamped to sane bounds) through a `Schedule`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type * as McpSchema from "./McpSchema.js"

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
