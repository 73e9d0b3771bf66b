/**
 * Durable task handles: the record a task-augmented call leaves in the
 * `SharedStore` (see `DurableTasks.TaskRecord`), following the task again by
 * id from any process sharing the store, and settling, exactly once across
 * processes, who completes the call's history record and who sends
 * `tasks/cancel` (each a compare-and-set on the task's record).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import * as DurableTasks from "../../DurableTasks.js"
import type * as McpClient from "../../McpClient.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as SharedStore from "../../SharedStore.js"
import type * as ToolCallLog from "../../ToolCallLog.js"
import * as Tasks from "../tasks.js"
import { isSettled, outcomeOf, type Stores } from "./durableContext.js"

/** How many times a compare-and-set is tried again after another process changed the record. */
const maxAttempts = 16

const Stored = Schema.parseJson(DurableTasks.TaskRecord)
const decodeStored = Schema.decodeOption(Stored)
const encodeStored = Schema.encodeSync(Stored)

const keyOf = (server: string, taskId: string) => `${encodeURIComponent(server)}:${encodeURIComponent(taskId)}`

const warn = (what: string) => (error: { readonly message: string }) =>
  Effect.logWarning(`mcp: durable tasks: could not ${what}`, error.message)

/** @internal */
export type Durable = Stores

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
  readonly record: DurableTasks.TaskRecord
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
  change: (record: DurableTasks.TaskRecord) => DurableTasks.TaskRecord | undefined
): Effect.Effect<Option.Option<DurableTasks.TaskRecord>, never> => {
  const attempt = (left: number): Effect.Effect<Option.Option<DurableTasks.TaskRecord>> =>
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
    const record: DurableTasks.TaskRecord = {
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
): Effect.Effect<ReadonlyArray<DurableTasks.TaskRecord>> =>
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
 * What the durable paths read of the client.
 *
 * @internal
 */
export interface DurableContext extends Tasks.TaskContext {
  readonly server: string | undefined
  readonly durable: Durable | undefined
}

/** The server's name in the app: the client's `server` option, or the name it gives in `initialize`. */
export const serverName = (ctx: DurableContext): Effect.Effect<string, McpError.McpClientError> =>
  Effect.suspend(() =>
    ctx.server !== undefined ?
      Effect.succeed(ctx.server) :
      Effect.map(ctx.session().initialized, (init) => init.serverInfo.name)
  )

const isUnknownTask = (error: McpError.McpClientError) =>
  error._tag === "ProtocolError" && error.code === McpError.ErrorCode.InvalidParams

/**
 * `tasks/cancel`, sent once for a task with a record however many processes
 * ask (compare-and-set on `cancelRequested`): a later cancel reads the task
 * with `tasks/get` instead. A task without a record is cancelled directly.
 *
 * @internal
 */
export const cancel = (
  ctx: DurableContext,
  taskId: string,
  options?: ClientSession.RequestOptions
): Effect.Effect<McpSchema.Task, McpError.McpClientError> => {
  const durable = ctx.durable
  if (durable === undefined) return Tasks.cancelTask(ctx, taskId, options)
  return Effect.flatMap(serverName(ctx), (server) => {
    const key = keyOf(server, taskId)
    const attempt = (left: number): Effect.Effect<McpSchema.Task, McpError.McpClientError> =>
      Effect.flatMap(
        read(durable, key),
        Option.match({
          onNone: () => Tasks.cancelTask(ctx, taskId, options),
          onSome: ({ record, text }) =>
            record.cancelRequested || record.done || left === 0 ?
              Tasks.getTask(ctx, taskId) :
              recordsOf(durable).compareAndSet(
                key,
                Option.some(text),
                encodeStored({ ...record, cancelRequested: true })
              )
                .pipe(
                  Effect.catchAll((error) => Effect.as(warn(`write task record ${key}`)(error), true)),
                  Effect.flatMap((written) => written ? Tasks.cancelTask(ctx, taskId, options) : attempt(left - 1))
                )
        })
      )
    return attempt(maxAttempts)
  })
}

/**
 * Follows a task by id again: its statuses, then its result (validated
 * against the tool's `outputSchema` when the record names the tool), the
 * history record completed by whichever process gets the result first.
 * Interrupting stops following; it does not cancel the task.
 *
 * @internal
 */
export const resume = (
  ctx: DurableContext,
  taskId: string,
  options?: Pick<McpClient.CallToolOptions, "maxTotalTimeout">
): Stream.Stream<McpClient.CallToolEvent, McpError.McpClientError | DurableTasks.TaskNotFound> =>
  Tasks.resultStream<McpError.McpClientError | DurableTasks.TaskNotFound>((emit) =>
    Effect.gen(function*() {
      const server = yield* serverName(ctx)
      const durable = ctx.durable
      const found = durable === undefined ? Option.none<Read>() : yield* read(durable, keyOf(server, taskId))
      const record = Option.getOrUndefined(Option.map(found, (r) => r.record))
      const log = durable?.log
      const historyId = record?.historyId
      const history = (update: ToolCallLog.Update) =>
        log !== undefined && historyId !== undefined ? log.update(historyId, update) : Effect.void
      const status = (task: McpSchema.Task) =>
        Effect.zipRight(
          durable === undefined ? Effect.void : observe(durable, server, task),
          history({ taskId, taskStatus: task.status })
        )

      const first = yield* Tasks.getTask(ctx, taskId).pipe(
        Effect.catchIf(isUnknownTask, (error) =>
          Effect.fail(
            new DurableTasks.TaskNotFound({
              server,
              taskId,
              message: `the server does not know task ${taskId}: ${error.message}`
            })
          ))
      )
      emit({ _tag: "TaskStatus", task: first })
      yield* status(first)

      // the statuses come from the polling fiber, synchronously: stored in order on a fiber of their own
      const queue = yield* Queue.unbounded<McpSchema.Task | null>()
      const consumer = yield* Effect.fork(
        Stream.fromQueue(queue).pipe(
          Stream.takeWhile((task): task is McpSchema.Task => task !== null),
          Stream.runForEach(status)
        )
      )
      const exit = yield* Tasks.followTask(ctx, first, options, {
        status: (task) => {
          queue.unsafeOffer(task)
          emit({ _tag: "TaskStatus", task })
        }
      }, false).pipe(
        Effect.flatMap((result) =>
          record === undefined ?
            Effect.succeed(result) :
            // the tool as listed: a client that has not listed the tools yet lists them first
            Effect.flatMap(ctx.findTool(record.tool), () => ctx.validate(record.tool, result))
        ),
        Effect.exit
      )
      queue.unsafeOffer(null)
      yield* Effect.ignore(consumer.await)
      // an interrupted resume leaves the task (and its record) to be followed again
      if (durable !== undefined && isSettled(exit) && !Exit.isInterrupted(exit)) {
        if (yield* settle(durable, server, taskId, record !== undefined)) {
          yield* history(outcomeOf(exit))
          yield* forget(durable, server, taskId)
        }
      }
      return yield* exit
    })
  )
