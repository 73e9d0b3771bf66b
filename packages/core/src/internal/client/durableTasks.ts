/**
 * Durable task handles: the record a task-augmented call leaves in the
 * `SharedStore` (see `DurableTasks.TaskRecord`), and settling, exactly once
 * across processes, who completes the call's history record and who sends
 * `tasks/cancel` (each a compare-and-set on the task's record). Reached
 * only through the service `DurableTasks.layer` builds (`records`);
 * following a task again is `resumeTask.ts`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as ClientSession from "../../ClientSession.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as SharedStore from "../../SharedStore.js"
import type * as ToolCallLog from "../../ToolCallLog.js"
import { type ClientContext, isSettled, outcomeOf, type Records, serverName } from "./durableContext.js"
import { extensionTask, isExtension } from "./resumeTask.js"
import * as DurableTasks from "./taskRecord.js"
import * as Tasks from "./tasks.js"

/** How many times a compare-and-set is tried again after another process changed the record. */
const maxAttempts = 16

const Stored = Schema.parseJson(DurableTasks.TaskRecord)
const decodeStored = Schema.decodeOption(Stored)
const encodeStored = Schema.encodeSync(Stored)

const keyOf = (server: string, taskId: string) => `${encodeURIComponent(server)}:${encodeURIComponent(taskId)}`

const warn = (what: string) => (error: { readonly message: string }) =>
  Effect.logWarning(`mcp: durable tasks: could not ${what}`, error.message)

/**
 * Where a client keeps its task records (the service's `SharedStore`), and
 * the call history it completes (the client's `ToolCallLog`).
 *
 * @internal
 */
export interface Durable {
  readonly shared: SharedStore.Service
  readonly log: ToolCallLog.Service | undefined
}

type TaskRecord = typeof DurableTasks.TaskRecord.Type

const collections = new WeakMap<Durable, SharedStore.Collection>()

/** The collection of the records. */
const recordsOf = (durable: Durable): SharedStore.Collection => {
  let found = collections.get(durable)
  if (found === undefined) {
    found = durable.shared.collection(DurableTasks.collection)
    collections.set(durable, found)
  }
  return found
}

/** A record as stored (its text, for a compare-and-set) and decoded. */
interface Read {
  readonly text: string
  readonly record: TaskRecord
}

const read = (durable: Durable, key: string): Effect.Effect<Option.Option<Read>> =>
  recordsOf(durable).get(key).pipe(
    Effect.map(Option.flatMap((text) => Option.map(decodeStored(text), (record) => ({ text, record })))),
    Effect.catchAll((error) => Effect.as(warn(`read task record ${key}`)(error), Option.none()))
  )

/**
 * Changes a record with a compare-and-set, reading it again as long as
 * another process changed it in between. `change` returns `undefined` to
 * leave the record as it is. Succeeds with the record as written (`None`
 * when there was none, or `change` left it, or the store failed).
 */
const modify = (
  durable: Durable,
  key: string,
  change: (record: TaskRecord) => TaskRecord | undefined
): Effect.Effect<Option.Option<TaskRecord>, never> => {
  const attempt = (left: number): Effect.Effect<Option.Option<TaskRecord>> =>
    Effect.flatMap(
      read(durable, key),
      Option.match({
        onNone: () => Effect.succeed(Option.none()),
        onSome: ({ record, text }) => {
          const next = change(record)
          if (next === undefined) return Effect.succeed(Option.none())
          return recordsOf(durable).compareAndSet(key, Option.some(text), encodeStored(next)).pipe(
            Effect.flatMap((written) =>
              written ? Effect.succeed(Option.some(next)) : left > 1 ? attempt(left - 1) : Effect.succeed(Option.none())
            ),
            Effect.catchAll((error) => Effect.as(warn(`write task record ${key}`)(error), Option.none()))
          )
        }
      })
    )
  return attempt(maxAttempts)
}

/**
 * Writes the record of a task the call has just created.
 *
 * @internal
 */
export const remember = (
  durable: Durable,
  start: {
    readonly server: string
    readonly tool: string
    readonly historyId: string | undefined
    readonly task: McpSchema.Task
  }
): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const record: TaskRecord = {
      server: start.server,
      taskId: start.task.taskId,
      tool: start.tool,
      ...(start.historyId !== undefined ? { historyId: start.historyId } : {}),
      status: start.task.status,
      ...(start.task.statusMessage !== undefined ? { statusMessage: start.task.statusMessage } : {}),
      createdAt: now,
      updatedAt: now,
      cancelRequested: false,
      done: false
    }
    const key = keyOf(start.server, start.task.taskId)
    return Effect.catchAll(recordsOf(durable).put(key, encodeStored(record)), warn(`write task record ${key}`))
  })

/**
 * Records a status of the task (any process following it).
 *
 * @internal
 */
export const observe = (durable: Durable, server: string, task: McpSchema.Task): Effect.Effect<void> =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) =>
      Effect.asVoid(modify(durable, keyOf(server, task.taskId), (record) => {
        if (record.done || (record.status === task.status && record.statusMessage === task.statusMessage)) {
          return undefined
        }
        const { statusMessage: _, ...rest } = record
        return {
          ...rest,
          status: task.status,
          ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
          updatedAt: now
        }
      }))
  )

/**
 * Whether this process completes the call: the one that marks the record
 * `done` first. A process that wrote or read the record (`known`) and finds
 * it gone lost to another; one that never had a record completes its own
 * call. The winner removes the record once the history is written
 * (`forget`).
 *
 * @internal
 */
export const settle = (
  durable: Durable,
  server: string,
  taskId: string,
  known: boolean
): Effect.Effect<boolean> => {
  const key = keyOf(server, taskId)
  return Effect.flatMap(read(durable, key), (found) =>
    Option.isNone(found) ?
      Effect.succeed(!known) :
      Effect.map(
        modify(durable, key, (record) => record.done ? undefined : { ...record, done: true }),
        Option.isSome
      ))
}

/**
 * Removes a settled record.
 *
 * @internal
 */
export const forget = (durable: Durable, server: string, taskId: string): Effect.Effect<void> => {
  const key = keyOf(server, taskId)
  return Effect.catchAll(recordsOf(durable).remove(key), warn(`remove task record ${key}`))
}

/**
 * The task records of a server, oldest first.
 *
 * @internal
 */
export const list = (
  durable: Durable,
  server: string
): Effect.Effect<ReadonlyArray<TaskRecord>> =>
  recordsOf(durable).list.pipe(
    Effect.map((entries) =>
      entries.flatMap(([, text]) => {
        const record = decodeStored(text)
        return Option.isSome(record) && record.value.server === server && !record.value.done ? [record.value] : []
      }).sort((a, b) => a.createdAt - b.createdAt)
    ),
    Effect.catchAll((error) => Effect.as(warn("read the task records")(error), []))
  )

/**
 * Whether this process sends `tasks/cancel` for a task: the one that marks
 * its record `cancelRequested` first (compare-and-set), or any process when
 * the task has no record.
 *
 * @internal
 */
export const claimCancel = (durable: Durable, server: string, taskId: string): Effect.Effect<boolean> => {
  const key = keyOf(server, taskId)
  const attempt = (left: number): Effect.Effect<boolean> =>
    Effect.flatMap(
      read(durable, key),
      Option.match({
        onNone: () => Effect.succeed(true),
        onSome: ({ record, text }) =>
          record.cancelRequested || record.done || left === 0 ?
            Effect.succeed(false) :
            recordsOf(durable).compareAndSet(key, Option.some(text), encodeStored({ ...record, cancelRequested: true }))
              .pipe(
                Effect.catchAll((error) => Effect.as(warn(`write task record ${key}`)(error), true)),
                Effect.flatMap((written) => written ? Effect.succeed(true) : attempt(left - 1))
              )
      })
    )
  return attempt(maxAttempts)
}

/**
 * `tasks/cancel`, sent once for a task with a record however many processes
 * ask (`claimCancel`): a later cancel reads the task with `tasks/get`
 * instead. A task without a record is cancelled directly. With a server of
 * the 2026-07-28 tasks extension (whose `tasks/cancel` answers no task),
 * the task is read with `tasks/get` after the cancel.
 *
 * @internal
 */
export const cancel = (
  ctx: ClientContext,
  durable: Durable,
  taskId: string,
  options?: ClientSession.RequestOptions
): Effect.Effect<McpSchema.Task, McpError.McpClientError> => {
  const mine = Effect.flatMap(serverName(ctx), (server) => claimCancel(durable, server, taskId))
  return Effect.flatMap(Effect.zip(isExtension(ctx), mine), ([extension, mine]) =>
    extension ?
      Effect.zipRight(
        mine ? ctx.session().request("tasks/cancel", { taskId }, options) : Effect.void,
        Effect.map(extensionTask(ctx, taskId), ([, task]) => task)
      ) :
      mine ?
      Tasks.cancelTask(ctx, taskId, options) :
      Tasks.getTask(ctx, taskId))
}

/**
 * The records of a client whose call history is `durable.log`, as the
 * functions its task and tool-call paths call.
 *
 * @internal
 */
export const records = (durable: Durable): Records => ({
  remember: (start) => remember(durable, start),
  observe: (server, task) => observe(durable, server, task),
  claimCancel: (server, taskId) => claimCancel(durable, server, taskId),
  ended: (server, taskId, exit, history) =>
    // a task the server may still run (the connection dropped) keeps its record, to be resumed;
    // otherwise the first process to settle it, this one or one that resumed it, completes the history
    !isSettled(exit) ?
      history(outcomeOf(exit)) :
      Effect.flatMap(settle(durable, server, taskId, true), (won) =>
        won ?
          Effect.zipRight(history(outcomeOf(exit)), forget(durable, server, taskId)) :
          Effect.void),
  cancel: (ctx, taskId, options) => cancel(ctx, durable, taskId, options),
  list: (server) => list(durable, server),
  log: durable.log,
  find: (server, taskId) =>
    Effect.map(read(durable, keyOf(server, taskId)), (found) => Option.isSome(found) ? found.value.record : undefined),
  settle: (server, taskId, known) => settle(durable, server, taskId, known),
  forget: (server, taskId) => forget(durable, server, taskId)
})
