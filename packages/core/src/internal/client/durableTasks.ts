/**
 * Durable task handles: the record a task-augmented call leaves in the
 * `SharedStore` (see `DurableTasks.TaskRecord`), following the task again by
 * id from any process sharing the store, and settling, exactly once across
 * processes, who completes the call's history record and who sends
 * `tasks/cancel` (each a compare-and-set on the task's record).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import type * as McpClient from "../../McpClient.js"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import type * as SharedStore from "../../SharedStore.js"
import type * as ToolCallLog from "../../ToolCallLog.js"
import { checker } from "../engine/decode.js"
import * as Codecs from "../era/codecs.js"
import * as TaskHandleHook from "../era/taskHandleHook.js"
import * as TaskHandles from "../era/taskHandles.js"
import * as Session from "../session.js"
import * as Tasks from "../tasks.js"
import { type ClientContext, outcomeOf, type Records, serverName } from "./durableContext.js"
import * as DurableTasks from "./taskRecord.js"

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

/**
 * Whether a call that ended so is over on the server too: a result, the
 * server's own error or cancellation, an interrupt (which cancels the task).
 * After a lost connection, a timeout or an expired session, the task may
 * still run: its record stays, to be resumed.
 */
const isSettled = <E extends { readonly _tag: string }>(exit: Exit.Exit<unknown, E>): boolean =>
  Exit.match(exit, {
    onSuccess: () => true,
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onNone: () => true,
        onSome: (error) =>
          !(error._tag === "TransportError" || error._tag === "RequestTimeout" || error._tag === "SessionExpired" ||
            error._tag === "OutcomeUnknown" || error._tag === "Unauthorized" || error._tag === "InsufficientScope")
      })
  })

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

const isUnknownTask = (error: McpError.McpClientError) =>
  error._tag === "ProtocolError" && error.code === McpError.ErrorCode.InvalidParams

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

/** Whether the server speaks the 2026-07-28 tasks extension (task handles, no `tasks/result`). */
const isExtension = (ctx: ClientContext): Effect.Effect<boolean, McpError.McpClientError> =>
  Effect.map(ctx.session().initialized, (init) => Codecs.of(init.protocolVersion).tasks === "server")

/** A task of the extension, from `tasks/get`, as `McpSchema.Task`. */
const extensionTask = (
  ctx: ClientContext,
  taskId: string
): Effect.Effect<[TaskHandles.ExtensionTask, McpSchema.Task], McpError.McpClientError> =>
  ctx.session().request("tasks/get", { taskId }).pipe(
    Effect.flatMap((raw) => TaskHandles.decoded("tasks/get", raw)),
    Effect.flatMap((task) =>
      Effect.map(Clock.currentTimeMillis, (now): [TaskHandles.ExtensionTask, McpSchema.Task] => [
        task,
        TaskHandles.toTask(task, now)
      ])
    )
  )

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

const notFound = (server: string, taskId: string) => (error: McpError.McpClientError) =>
  Effect.fail(
    new DurableTasks.TaskNotFound({
      server,
      taskId,
      message: `the server does not know task ${taskId}: ${error.message}`
    })
  )

/**
 * A 2025-11-25 task followed again: `tasks/get` until it settles, then
 * `tasks/result`. Each status goes to `status`, in order.
 */
const followTask = (
  ctx: ClientContext,
  server: string,
  taskId: string,
  options: Pick<McpClient.CallToolOptions, "maxTotalTimeout"> | undefined,
  status: (task: McpSchema.Task) => Effect.Effect<void>
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError | DurableTasks.TaskNotFound> =>
  Effect.gen(function*() {
    const first = yield* Tasks.getTask(ctx, taskId).pipe(Effect.catchIf(isUnknownTask, notFound(server, taskId)))
    yield* status(first)
    // the statuses come from the polling fiber, synchronously: handled in order on a fiber of their own
    const queue = yield* Queue.unbounded<McpSchema.Task | null>()
    const consumer = yield* Effect.fork(
      Stream.fromQueue(queue).pipe(
        Stream.takeWhile((task): task is McpSchema.Task => task !== null),
        Stream.runForEach(status)
      )
    )
    const exit = yield* Effect.exit(
      Tasks.followTask(ctx, first, options, { status: (task) => queue.unsafeOffer(task) }, false)
    )
    queue.unsafeOffer(null)
    yield* Effect.ignore(consumer.await)
    return yield* exit
  })

const decodeCallToolResult = checker(McpSchema.CallToolResult)

/**
 * A task of the 2026-07-28 tasks extension followed again, as a call's task
 * handle is (`taskHandles.ts`): `tasks/get` at the task's interval, the
 * questions of an `input_required` task answered with this client's
 * handlers through `tasks/update` (a `ProtocolError` "method not found"
 * when it has none for one), then the task's `result` or its `error`.
 */
const followHandle = (
  ctx: ClientContext,
  server: string,
  taskId: string,
  status: (task: McpSchema.Task) => Effect.Effect<void>
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError | DurableTasks.TaskNotFound> =>
  Effect.gen(function*() {
    const session = ctx.session()
    const [first] = yield* extensionTask(ctx, taskId).pipe(Effect.catchIf(isUnknownTask, notFound(server, taskId)))
    const follow = Session.followContext(session) ??
      { request: session.request, handlers: new Map(), polling: ctx.polling }
    // resuming is not the call: an interrupt stops following, and sends no tasks/cancel
    const hook: TaskHandleHook.Hook = { status, cancel: () => Effect.void }
    const raw = yield* Effect.locally(
      TaskHandles.follow(
        "tools/call",
        { ...first, resultType: "task" },
        follow.request,
        follow.handlers,
        follow.polling
      ),
      TaskHandleHook.current,
      hook
    )
    const result = decodeCallToolResult(raw)
    return result._tag === "Right" ?
      result.right :
      yield* new McpError.DecodeError({ reason: "Schema", method: "tools/call", message: result.left })
  })

/**
 * Follows a task by id again: its statuses, then its result (validated
 * against the tool's `outputSchema` when the record names the tool), the
 * history record completed by whichever process gets the result first.
 * Interrupting stops following; it does not cancel the task.
 *
 * @internal
 */
export const resume = (
  ctx: ClientContext,
  durable: Durable,
  taskId: string,
  options?: Pick<McpClient.CallToolOptions, "maxTotalTimeout">
): Stream.Stream<McpClient.CallToolEvent, McpError.McpClientError | DurableTasks.TaskNotFound> =>
  Tasks.resultStream<McpError.McpClientError | DurableTasks.TaskNotFound>((emit) =>
    Effect.gen(function*() {
      const server = yield* serverName(ctx)
      const found = yield* read(durable, keyOf(server, taskId))
      const record = Option.getOrUndefined(Option.map(found, (r) => r.record))
      const log = durable.log
      const historyId = record?.historyId
      const history = (update: ToolCallLog.Update) =>
        log !== undefined && historyId !== undefined ? log.update(historyId, update) : Effect.void
      const status = (task: McpSchema.Task) =>
        Effect.sync(() => emit({ _tag: "TaskStatus", task })).pipe(
          Effect.zipRight(observe(durable, server, task)),
          Effect.zipRight(history({ taskId, taskStatus: task.status }))
        )

      const extension = yield* isExtension(ctx)
      const exit = yield* (extension ?
        followHandle(ctx, server, taskId, status) :
        followTask(ctx, server, taskId, options, status)).pipe(
          Effect.flatMap((result) =>
            record === undefined ?
              Effect.succeed(result) :
              // the tool as listed: a client that has not listed the tools yet lists them first
              Effect.flatMap(ctx.findTool(record.tool), () => ctx.validate(record.tool, result))
          ),
          Effect.exit
        )
      // an interrupted resume leaves the task (and its record) to be followed again; a task the server
      // does not know (any more) is over: its record goes, its history fails
      if (isSettled(exit) && !Exit.isInterrupted(exit)) {
        if (yield* settle(durable, server, taskId, record !== undefined)) {
          yield* history(outcomeOf(exit))
          yield* forget(durable, server, taskId)
        }
      }
      return yield* exit
    })
  )

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
  resume: (ctx, taskId, options) => resume(ctx, durable, taskId, options),
  list: (server) => list(durable, server)
})
