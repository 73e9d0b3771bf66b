import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import * as TaskPolling from "../../TaskPolling.js"
import { decodeResult, paginate } from "../engine/decode.js"
import * as Codecs from "../era/codecs.js"
import type * as ClientModel from "./model.js"
import * as Results from "./results.js"

/** @internal */
export interface TaskContext {
  readonly session: () => ClientSession.Service
  readonly polling: TaskPolling.Service
  /** The tool from the last list, if any (no I/O). */
  readonly cachedTool: (name: string) => McpSchema.Tool | undefined
  /** The tool, listing the tools first when it is not known yet. */
  readonly findTool: (name: string) => Effect.Effect<McpSchema.Tool | undefined, McpError.McpClientError>
  readonly trusted: boolean
  /** Checks a call's final result (its `structuredContent` against the tool's `outputSchema`). */
  readonly validate: (
    name: string,
    result: McpSchema.CallToolResult
  ) => Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError>
  /** How an interrupted call cancels its task, when not with a plain `tasks/cancel` (durable tasks: once). */
  readonly cancelOnce?: ((taskId: string) => Effect.Effect<McpSchema.Task, McpError.McpClientError>) | undefined
}

/** @internal */
export interface Listeners {
  readonly progress?: ((progress: McpSchema.ProgressNotificationParams) => void) | undefined
  readonly status?: ((task: McpSchema.Task) => void) | undefined
}

const decodeCallToolResult = Results.request("tools/call")
const decodeTaskResult = Results.request("tasks/result")
// a call asked as a task (2025 era) answers with the task it created, not the method's result
const decodeCreateTaskResult = decodeResult(McpSchema.CreateTaskResult)
const decodeGetTaskResult = Results.request("tasks/get")
const decodeCancelTaskResult = Results.request("tasks/cancel")
const decodeListTasksResult = Results.request("tasks/list")

const noTimeout = { timeout: "none", resetTimeoutOnProgress: false } as const

/** @internal */
export const getTask = (ctx: TaskContext, taskId: string): Effect.Effect<McpSchema.Task, McpError.McpClientError> =>
  decodeGetTaskResult(ctx.session(), { taskId })

/** @internal */
export const cancelTask = (
  ctx: TaskContext,
  taskId: string,
  options?: ClientSession.RequestOptions
): Effect.Effect<McpSchema.Task, McpError.McpClientError> => decodeCancelTaskResult(ctx.session(), { taskId }, options)

/** @internal */
export const getTaskResult = (
  ctx: TaskContext,
  taskId: string,
  options?: ClientSession.RequestOptions
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> =>
  decodeTaskResult(ctx.session(), { taskId }, { ...noTimeout, ...options })

/** @internal */
export const listTasks = (ctx: TaskContext): Effect.Effect<ReadonlyArray<McpSchema.Task>, McpError.McpClientError> =>
  Effect.flatMap(ctx.session().initialized, (init) =>
    init.capabilities.tasks?.list === undefined ?
      Effect.fail(new McpError.UnsupportedCapability({ capability: "tasks.list", method: "tasks/list" })) :
      paginate((cursor) => decodeListTasksResult(ctx.session(), cursor), (page) => page.tasks))

/** @internal */
export const taskStatus = (
  ctx: TaskContext,
  taskId: string
): Stream.Stream<McpSchema.Task, McpError.McpClientError> =>
  Stream.repeatEffectWithSchedule(getTask(ctx, taskId), TaskPolling.schedule(ctx.polling))

const isWaitingForInput = (task: McpSchema.Task) => task.status === "input_required"

/**
 * Polls until the task is terminal or needs input, then fetches its result
 * (`tasks/result` blocks while input is gathered). Interrupting sends
 * `tasks/cancel`, unless `cancelOnInterrupt` is `false` (a resumed task).
 *
 * @internal
 */
export const followTask = (
  ctx: TaskContext,
  created: McpSchema.Task,
  options: ClientModel.CallToolOptions | undefined,
  listeners: Listeners,
  cancelOnInterrupt = true
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> => {
  const taskId = created.taskId
  const poll = Effect.tap(getTask(ctx, taskId), (task) => Effect.sync(() => listeners.status?.(task)))
  const schedule = TaskPolling.schedule(ctx.polling)
  const untilSettled = TaskPolling.isTerminal(created.status) || isWaitingForInput(created) ?
    Effect.succeed(created) :
    Effect.zipRight(
      Effect.sleep(TaskPolling.delay(ctx.polling, created)),
      Effect.repeat(poll, { schedule, until: isWaitingForInput })
    )
  return untilSettled.pipe(
    Effect.flatMap((task) =>
      task.status === "cancelled" ?
        Effect.fail(
          new McpError.RequestCancelled({
            method: "tools/call",
            reason: task.statusMessage ?? `task ${taskId} was cancelled by the server`
          })
        ) :
        getTaskResult(
          ctx,
          taskId,
          options?.maxTotalTimeout !== undefined ? { maxTotalTimeout: options.maxTotalTimeout } : {}
        )
    ),
    Effect.onInterrupt(() =>
      cancelOnInterrupt ?
        Effect.ignore(
          ctx.cancelOnce !== undefined ?
            Effect.timeout(ctx.cancelOnce(taskId), "5 seconds") :
            cancelTask(ctx, taskId, { timeout: "5 seconds" })
        ) :
        Effect.void
    )
  )
}

const runCall = (
  ctx: TaskContext,
  params: McpSchema.CallToolRequestParams,
  options: ClientModel.CallToolOptions | undefined,
  listeners: Listeners
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> => {
  const tool = ctx.cachedTool(params.name)
  return tool === undefined ?
    Effect.flatMap(ctx.findTool(params.name), (found) => callKnown(ctx, found, params, options, listeners)) :
    callKnown(ctx, tool, params, options, listeners)
}

const callKnown = (
  ctx: TaskContext,
  tool: McpSchema.Tool | undefined,
  params: McpSchema.CallToolRequestParams,
  options: ClientModel.CallToolOptions | undefined,
  listeners: Listeners
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> => {
  const requested = options?.task
  const asTask = (requested !== undefined && requested !== false) || tool?.execution?.taskSupport === "required"
  // built once per call, with every field (one object shape): every call passes here
  const request: ClientSession.RequestOptions = {
    timeout: options?.timeout,
    maxTotalTimeout: options?.maxTotalTimeout,
    resetTimeoutOnProgress: options?.resetTimeoutOnProgress,
    toolName: params.name,
    onProgress: listeners.progress,
    replay: ctx.trusted && (tool?.annotations?.idempotentHint === true || tool?.annotations?.readOnlyHint === true)
  }
  // decoded and validated in one step: a pending call holds one continuation for both
  const plain = () =>
    decodeCallToolResult(ctx.session(), params as Record<string, unknown>, request, ctx.validate, params.name)
  if (!asTask) return plain()
  return Effect.gen(function*() {
    const session = ctx.session()
    const init = yield* session.initialized
    // 2026-07-28: the server decides whether a call becomes a task; the session follows its handle
    if (Codecs.of(init.protocolVersion).tasks === "server") return yield* plain()
    if (init.capabilities.tasks?.requests?.tools?.call === undefined) {
      return yield* new McpError.UnsupportedCapability({
        capability: "tasks.requests.tools.call",
        method: "tools/call"
      })
    }
    const metadata: McpSchema.TaskMetadata = typeof requested === "object" ?
      requested :
      ctx.polling.ttl !== undefined ?
      { ttl: ctx.polling.ttl } :
      {}
    const created = yield* decodeCreateTaskResult(
      session,
      "tools/call",
      { ...params, task: metadata } as Record<string, unknown>,
      { ...request, replay: false }
    )
    listeners.status?.(created.task)
    return yield* Effect.flatMap(
      followTask(ctx, created.task, options, listeners),
      (result) => ctx.validate(params.name, result)
    )
  })
}

/** @internal */
export const callTool = (
  ctx: TaskContext,
  params: McpSchema.CallToolRequestParams,
  options?: ClientModel.CallToolOptions
): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> => {
  const onProgress = options?.onProgress
  if (onProgress === undefined) return runCall(ctx, params, options, {})
  // progress callbacks are effects: run them in order on their own fiber, all before the result is returned
  return Effect.gen(function*() {
    const queue = yield* Queue.unbounded<McpSchema.ProgressNotificationParams | null>()
    const consumer = yield* Effect.fork(
      Stream.fromQueue(queue).pipe(
        Stream.takeWhile((p): p is McpSchema.ProgressNotificationParams => p !== null),
        Stream.runForEach(onProgress)
      )
    )
    const result = yield* runCall(ctx, params, options, { progress: (p) => queue.unsafeOffer(p) })
    queue.unsafeOffer(null)
    yield* Effect.ignore(consumer.await)
    return result
  })
}

/** @internal */
export const callToolStream = (
  ctx: TaskContext,
  params: McpSchema.CallToolRequestParams,
  options?: Omit<ClientModel.CallToolOptions, "onProgress">
): Stream.Stream<ClientModel.CallToolEvent, McpError.McpClientError> =>
  resultStream((emit) =>
    runCall(ctx, params, options, {
      progress: (progress) => emit({ _tag: "Progress", progress }),
      status: (task) => emit({ _tag: "TaskStatus", task })
    })
  )

/**
 * The events of a call as a stream: what `run` emits while it runs, then its
 * result as the last event (or its error).
 *
 * @internal
 */
export const resultStream = <E = McpError.McpClientError>(
  run: (
    emit: (event: ClientModel.CallToolEvent) => void
  ) => Effect.Effect<McpSchema.CallToolResult, E>
): Stream.Stream<ClientModel.CallToolEvent, E> =>
  Stream.asyncScoped<ClientModel.CallToolEvent, E>((emit) =>
    run((event) => void emit.single(event)).pipe(
      Effect.matchEffect({
        onFailure: (error) => Effect.promise(() => emit.fail(error)),
        onSuccess: (result) =>
          Effect.promise(() => emit.single({ _tag: "Result", result })).pipe(
            Effect.zipRight(Effect.promise(() => emit.end()))
          )
      }),
      Effect.forkScoped
    )
  )
