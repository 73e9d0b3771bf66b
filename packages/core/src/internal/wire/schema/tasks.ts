/**
 * Tasks (2025-11-25): task-augmented requests, polling, results, listing
 * and cancellation.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { EmptyResult, JsonObject, PaginatedResult } from "./common.js"

/**
 * The `_meta` key under which a message names the task it belongs to.
 *
 * @since 0.1.0
 * @category constants
 */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"

/**
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatus = Schema.Literal("working", "input_required", "completed", "failed", "cancelled")

/**
 * @since 0.1.0
 * @category schemas
 */
export type TaskStatus = typeof TaskStatus.Type

/**
 * Put in a request's `task` field to ask for task-augmented execution.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskMetadata = Schema.Struct({
  ttl: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TaskMetadata = typeof TaskMetadata.Type

/**
 * The value stored under {@link RELATED_TASK_META_KEY} in `_meta`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RelatedTaskMetadata = Schema.Struct({
  taskId: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type RelatedTaskMetadata = typeof RelatedTaskMetadata.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Task = Schema.Struct({
  taskId: Schema.String,
  status: TaskStatus,
  statusMessage: Schema.optional(Schema.String),
  createdAt: Schema.String,
  lastUpdatedAt: Schema.String,
  ttl: Schema.NullOr(Schema.Number),
  pollInterval: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Task = typeof Task.Type

/**
 * The immediate answer to a task-augmented request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateTaskResult = Schema.Struct({
  ...EmptyResult.fields,
  task: Task
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CreateTaskResult = typeof CreateTaskResult.Type

/**
 * Parameters naming one task (`tasks/get`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskRequestParams = Schema.Struct({
  taskId: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type GetTaskRequestParams = typeof GetTaskRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskResult = Schema.Struct({
  ...EmptyResult.fields,
  ...Task.fields
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type GetTaskResult = typeof GetTaskResult.Type

/**
 * Parameters of `tasks/result`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskPayloadRequestParams = GetTaskRequestParams

/**
 * @since 0.1.0
 * @category schemas
 */
export type GetTaskPayloadRequestParams = typeof GetTaskPayloadRequestParams.Type

/**
 * The answer to `tasks/result`: shaped like the original request's result, so
 * decode it further with that request's result schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskPayloadResult = JsonObject

/**
 * @since 0.1.0
 * @category schemas
 */
export type GetTaskPayloadResult = typeof GetTaskPayloadResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListTasksResult = Schema.Struct({
  ...PaginatedResult.fields,
  tasks: Schema.Array(Task)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ListTasksResult = typeof ListTasksResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CancelTaskRequestParams = GetTaskRequestParams

/**
 * @since 0.1.0
 * @category schemas
 */
export type CancelTaskRequestParams = typeof CancelTaskRequestParams.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CancelTaskResult = GetTaskResult

/**
 * @since 0.1.0
 * @category schemas
 */
export type CancelTaskResult = typeof CancelTaskResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatusNotificationParams = GetTaskResult

/**
 * @since 0.1.0
 * @category schemas
 */
export type TaskStatusNotificationParams = typeof TaskStatusNotificationParams.Type
