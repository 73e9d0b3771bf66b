/**
 * Following a task-augmented call again by its task id (`resumeTask`):
 * 2025-11-25 tasks with `tasks/get` then `tasks/result`, tasks of the
 * 2026-07-28 extension with `tasks/get` (answering `input_required` through
 * `tasks/update`). Every client has it; with `DurableTasks` the call's
 * record names the tool, the history record is completed once, and the
 * record goes (`durableTasks.ts`, through the service's `Records`).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import type * as ToolCallLog from "../../ToolCallLog.js"
import { checker } from "../engine/decode.js"
import * as Codecs from "../era/codecs.js"
import * as TaskHandleHook from "../era/taskHandleHook.js"
import * as TaskHandles from "../era/taskHandles.js"
import * as Session from "../session.js"
import { type ClientContext, isSettled, outcomeOf, type Records, serverName } from "./durableContext.js"
import type * as ClientModel from "./model.js"
import { TaskNotFound } from "./taskNotFound.js"
import * as Tasks from "./tasks.js"

const isUnknownTask = (error: McpError.McpClientError) =>
  error._tag === "ProtocolError" && error.code === McpError.ErrorCode.InvalidParams

/**
 * Whether the server speaks the 2026-07-28 tasks extension (task handles, no `tasks/result`).
 *
 * @internal
 */
export const isExtension = (ctx: ClientContext): Effect.Effect<boolean, McpError.McpClientError> =>
  Effect.map(ctx.session().initialized, (init) => Codecs.of(init.protocolVersion).tasks === "server")

/**
 * A task of the extension, from `tasks/get`, as `McpSchema.Task`.
 *
 * @internal
 */
export const extensionTask = (
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

const notFound = (server: string, taskId: string) => (error: McpError.McpClientError) =>
  Effect.fail(
    new TaskNotFound({
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
  options: Pick<ClientModel.CallToolOptions, "maxTotalTimeout"> | undefined,
  status: (task: McpSchema.Task) => Effect.Effect<void>
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError | TaskNotFound> =>
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
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError | TaskNotFound> =>
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
  durable: Records | undefined,
  taskId: string,
  options?: Pick<ClientModel.CallToolOptions, "maxTotalTimeout">
): Stream.Stream<ClientModel.CallToolEvent, McpError.McpClientError | TaskNotFound> =>
  Tasks.resultStream<McpError.McpClientError | TaskNotFound>((emit) =>
    Effect.gen(function*() {
      const server = yield* serverName(ctx)
      const record = durable === undefined ? undefined : yield* durable.find(server, taskId)
      const log = durable?.log
      const historyId = record?.historyId
      const history = (update: ToolCallLog.Update) =>
        log !== undefined && historyId !== undefined ? log.update(historyId, update) : Effect.void
      const status = (task: McpSchema.Task) =>
        Effect.sync(() => emit({ _tag: "TaskStatus", task })).pipe(
          Effect.zipRight(durable === undefined ? Effect.void : durable.observe(server, task)),
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
      if (durable !== undefined && isSettled(exit) && !Exit.isInterrupted(exit)) {
        if (yield* durable.settle(server, taskId, record !== undefined)) {
          yield* history(outcomeOf(exit))
          yield* durable.forget(server, taskId)
        }
      }
      return yield* exit
    })
  )
