/**
 * The durable task record and its collection: defined here so that the
 * records' code (`durableTasks.ts`) and the public `DurableTasks` module
 * (which builds the service over that code) share them without importing
 * each other.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as McpSchema from "../../McpSchema.js"

/** @internal */
export const collection = "mcp-effect/tasks/task"

/** @internal */
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

/** @internal */
export interface TaskRecord extends Schema.Schema.Type<typeof TaskRecord> {}
