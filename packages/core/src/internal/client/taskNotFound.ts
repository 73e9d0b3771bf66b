/**
 * The error of a task the server does not know, apart from the records
 * (`taskRecord.ts`): resuming a task needs it, a client without
 * `DurableTasks` bundles none of the records' schema.
 */
import * as Schema from "effect/Schema"

/**
 * The server does not know the task (see `DurableTasks.TaskNotFound`).
 *
 * @internal
 */
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>("@mcp-effect/core/TaskNotFound")(
  "TaskNotFound",
  {
    server: Schema.String,
    taskId: Schema.String,
    message: Schema.String
  }
) {}
