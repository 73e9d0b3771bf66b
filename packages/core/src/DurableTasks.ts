/**
 * Durable task handles: the record a task-augmented call leaves in the
 * `SharedStore` of the client's context (kv-redis' `RedisKeyValueStore`,
 * the hub's file and IndexedDB stores, `SharedStore.layerMemory`), so that the task can be followed again by id
 * (`McpClient.Service.resumeTask`), listed (`durableTasks`) and cancelled
 * once (`cancelTask`) from any process sharing the store, and the error for
 * a task id the server does not know.
 *
 * The code that writes and follows the records loads on first use (a
 * dynamic `import()`), and only in a client that has a `SharedStore`.
 *
 * @since 0.4.0
 */
import * as Schema from "effect/Schema"
import * as McpSchema from "./McpSchema.js"

/**
 * The name of the `SharedStore` collection of the records.
 *
 * @since 0.4.0
 * @category constants
 */
export const collection = "mcp-effect/tasks/task"

/**
 * The durable record of a task-augmented call, kept in the `SharedStore`
 * collection `"mcp-effect/tasks/task"` from the task's creation until its
 * result is stored: the server (its name in the app), the tool, the id of
 * its `ToolCallLog` record (which has the arguments: the record holds none,
 * so no secret a call was given and no unbounded value), the last status seen by any process, and
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
  historyId: Schema.optional(Schema.String),
  status: McpSchema.TaskStatus,
  statusMessage: Schema.optional(Schema.String),
  /** When the task was created, in milliseconds since the epoch (from the `Clock`). */
  createdAt: Schema.Number,
  /** When a process last changed the record, in milliseconds since the epoch. */
  updatedAt: Schema.Number,
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
