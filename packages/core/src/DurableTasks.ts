/**
 * Durable task handles: with `layer` in its context (over a `SharedStore`:
 * kv-redis' `RedisKeyValueStore`, the hub's file and IndexedDB stores,
 * `SharedStore.layerMemory`), a client records each task-augmented call in
 * the store, so that the task can be followed again by id
 * (`McpClient.Service.resumeTask`), listed (`durableTasks`) and cancelled
 * once (`cancelTask`) from any process sharing the store; the error for a
 * task id the server does not know.
 *
 * The records' code is carried by the service this module's `layer`
 * builds: a client built without it bundles the tag's key and nothing else
 * of the feature (`durableTasks` is then empty, `cancelTask` sends a plain
 * `tasks/cancel`, and `resumeTask` follows a task by the id the app kept,
 * with no record or history to complete).
 * A `SharedStore` in the context alone does not turn the records on. The
 * hub's `ServerRegistry` provides the layer to its clients when its context
 * has a `SharedStore` (every hub storage does).
 *
 * @since 0.4.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as DurableContext from "./internal/client/durableContext.js"
import * as internal from "./internal/client/durableTasks.js"
import * as SharedStore from "./SharedStore.js"
import type * as ToolCallLog from "./ToolCallLog.js"

export {
  /**
   * The server does not know the task (`tasks/get` answered "invalid params",
   * as the spec has servers answer for an unknown or expired task id).
   *
   * @since 0.4.0
   * @category errors
   */
  TaskNotFound
} from "./internal/client/taskNotFound.js"

export {
  /**
   * The name of the `SharedStore` collection of the records.
   *
   * @since 0.4.0
   * @category constants
   */
  collection,
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
  TaskRecord
} from "./internal/client/taskRecord.js"

/**
 * The store of the records, and the records of one client (`McpClient`
 * calls `client` once, when it is built, with the `ToolCallLog` of its
 * context, whose records a resumed call completes).
 *
 * @since 0.5.0
 * @category models
 */
export interface Service {
  readonly store: SharedStore.Service
  /** @internal */
  readonly client: (log: ToolCallLog.Service | undefined) => DurableContext.Records
}

/**
 * @since 0.5.0
 * @category tags
 */
export class DurableTasks extends Context.Tag("@mcp-effect/core/DurableTasks")<DurableTasks, Service>() {}

/**
 * The service over a `SharedStore`.
 *
 * @since 0.5.0
 * @category constructors
 */
export const fromSharedStore = (store: SharedStore.Service): Service => ({
  store,
  client: (log) => internal.records({ shared: store, log })
})

/**
 * The service over the `SharedStore` of the context.
 *
 * @since 0.5.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, SharedStore.SharedStore> = Effect.map(
  SharedStore.SharedStore,
  fromSharedStore
)

/**
 * Durable task records in the `SharedStore` of the context, for every
 * client built with this layer.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer: Layer.Layer<DurableTasks, never, SharedStore.SharedStore> = Layer.effect(DurableTasks, make)
