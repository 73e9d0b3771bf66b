import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ApprovalDecision from "../../ApprovalDecision.js"
import * as ApprovalPolicy from "../../ApprovalPolicy.js"
import * as Approver from "../../Approver.js"
import type * as ClientSession from "../../ClientSession.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import * as ToolCallLog from "../../ToolCallLog.js"
import * as TaskHandleHook from "../era/taskHandleHook.js"
import { currentLogId } from "../policy/continuationHooks.js"
import { currentOrigin } from "../policy/origin.js"
import * as Durable from "./durableContext.js"
import type * as ClientModel from "./model.js"
import { resultStream } from "./tasks.js"

/**
 * What the client hands to the tool-call path: how to reach the server, and
 * the calls underneath (which know nothing of approval, history or output
 * validation).
 *
 * @internal
 */
export interface ToolCallContext {
  /** `McpClient.Options.server`; the server's own name when absent. */
  readonly server: string | undefined
  readonly trusted: boolean
  readonly session: () => ClientSession.Service
  readonly findTool: (name: string) => Effect.Effect<McpSchema.Tool | undefined, McpError.McpClientError>
  /** The call, its result validated against the tool's `outputSchema`. */
  readonly call: (
    params: McpSchema.CallToolRequestParams,
    options?: ClientModel.CallToolOptions
  ) => Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError>
  /** Where task-augmented calls leave their durable records, if anywhere. */
  readonly durable: Durable.Records | undefined
  /** The call's events, its `Result` validated against the tool's `outputSchema`. */
  readonly stream: (
    params: McpSchema.CallToolRequestParams,
    options?: Omit<ClientModel.CallToolOptions, "onProgress">
  ) => Stream.Stream<ClientModel.CallToolEvent, McpError.McpClientError>
}

/** @internal */
export interface ToolCalls {
  readonly callTool: ClientModel.CallTool
  readonly callToolStream: ClientModel.CallToolStream
}

type Emit = (event: ClientModel.CallToolEvent) => Effect.Effect<void>

const unlisted = (name: string): McpSchema.Tool => ({ name, inputSchema: { type: "object" } })

/**
 * Puts the approval policy, the call log and output validation in front of
 * the client's tool calls, reading the optional services from the context.
 *
 * @internal
 */
export const make = (ctx: ToolCallContext): Effect.Effect<ToolCalls> =>
  Effect.gen(function*() {
    const policy = yield* Effect.serviceOption(ApprovalPolicy.ApprovalPolicy)
    const approver = yield* Effect.serviceOption(Approver.Approver)
    const log = yield* Effect.serviceOption(ToolCallLog.ToolCallLog)

    const durable = ctx.durable
    if (Option.isNone(policy) && Option.isNone(log) && durable === undefined) {
      return { callTool: ctx.call, callToolStream: ctx.stream }
    }

    /** Asks the policy (and the approver); `undefined` means approved. */
    const authorize = (
      server: string,
      params: McpSchema.CallToolRequestParams,
      onAsk: Effect.Effect<void>
    ): Effect.Effect<McpError.ApprovalDenied | undefined, McpError.McpClientError> =>
      Effect.gen(function*() {
        if (Option.isNone(policy)) return undefined
        const rules = policy.value
        const tool = (yield* ctx.findTool(params.name)) ?? unlisted(params.name)
        // an MCP App's call runs with its origin set (`ToolCallLog.withOrigin`): the approver is told who asks
        const origin = yield* FiberRef.get(currentOrigin)
        const request = rules.request({
          server,
          trusted: ctx.trusted || rules.trusts(server),
          tool,
          arguments: params.arguments,
          ...(origin === undefined ? {} : { origin })
        })
        const verdict = yield* rules.evaluate(request)
        if (verdict._tag === "Allow") return undefined
        const denied = (reason: string) => new McpError.ApprovalDenied({ toolName: params.name, reason })
        if (verdict._tag === "Deny") return denied(verdict.reason)
        yield* onAsk
        if (Option.isNone(approver)) return denied("approval needed, and no Approver is provided")
        const decision = yield* approver.value.ask(request)
        if (decision._tag === "ApproveAlways") yield* rules.remember(request)
        return ApprovalDecision.isApproved(decision) ? undefined : denied(
          decision._tag === "Deny" && decision.reason !== undefined ? decision.reason : "denied by the approver"
        )
      })

    const run = (
      params: McpSchema.CallToolRequestParams,
      options: Omit<ClientModel.CallToolOptions, "onProgress"> | undefined,
      emit: Emit | undefined
    ): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> =>
      // each run of the effect is a call of its own, with a record of its own
      Effect.suspend(() => runOnce(params, options, emit))

    const runOnce = (
      params: McpSchema.CallToolRequestParams,
      options: Omit<ClientModel.CallToolOptions, "onProgress"> | undefined,
      emit: Emit | undefined
    ): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> => {
      // the record's id once it exists; its final status is set by the `onExit` below, whatever ends the call
      let id: string | undefined
      // the server's name and the task the call created, for its durable record
      let server: string | undefined
      let taskId: string | undefined
      const record = (update: ToolCallLog.Update) =>
        Option.isSome(log) && id !== undefined ? log.value.update(id, update) : Effect.void
      const begin = (server: string, status: "AwaitingApproval" | "Running" | "Denied") =>
        Option.isNone(log) ? Effect.void : id !== undefined ? record({ status }) : log.value.start({
          server,
          tool: params.name,
          arguments: params.arguments,
          status
        }).pipe(
          Effect.tap((started) => Effect.sync(() => id = started)),
          Effect.asVoid,
          Effect.uninterruptible
        )

      return Effect.gen(function*() {
        server = yield* Durable.serverName(ctx)
        const denial = yield* authorize(server, params, begin(server, "AwaitingApproval"))
        if (denial !== undefined) {
          yield* begin(server, "Denied")
          return yield* denial
        }
        yield* begin(server, "Running")

        // each status of the call's task: its durable record, its history, its event
        const status = (task: McpSchema.Task) => {
          const first = taskId === undefined
          taskId = task.taskId
          const [name, historyId] = [server, id]
          const durably = durable === undefined || name === undefined ?
            Effect.void :
            first ?
            durable.remember({ server: name, tool: params.name, historyId, task }) :
            durable.observe(name, task)
          return Effect.zipRight(
            Effect.zipRight(durably, record({ taskId: task.taskId, taskStatus: task.status })),
            emit?.({ _tag: "TaskStatus", task }) ?? Effect.void
          )
        }
        // a 2026 task handle, followed inside the session, reports through the hook; its interrupt cancels once
        const hook: TaskHandleHook.Hook = {
          status,
          cancel: (task, send) => {
            const name = server
            return durable === undefined || name === undefined ?
              send :
              Effect.flatMap(durable.claimCancel(name, task), (mine) => mine ? send : Effect.void)
          }
        }
        const execute = Option.isNone(log) && emit === undefined && durable === undefined ?
          ctx.call(params, options) :
          Effect.locally(TaskHandleHook.current, hook)(Effect.suspend(() => {
            let result: McpSchema.CallToolResult | undefined
            return ctx.stream(params, options).pipe(
              Stream.runForEach((event) => {
                switch (event._tag) {
                  case "Progress": {
                    const { message, progress, total } = event.progress
                    return Effect.zipRight(
                      record({
                        progress: {
                          progress,
                          ...(total !== undefined ? { total } : {}),
                          ...(message !== undefined ? { message } : {})
                        }
                      }),
                      emit?.(event) ?? Effect.void
                    )
                  }
                  case "TaskStatus":
                    return status(event.task)
                  case "Result":
                    return Effect.sync(() => {
                      result = event.result
                    })
                }
              }),
              Effect.flatMap(() =>
                result === undefined ?
                  Effect.dieMessage("tools/call: the call's stream ended without a result") :
                  Effect.succeed(result)
              )
            )
          }))

        // a continuation of this call (another process may complete it) updates this record
        return yield* id === undefined ? execute : Effect.locally(execute, currentLogId, id)
      }).pipe(
        Effect.onExit((exit) => {
          return durable === undefined || server === undefined || taskId === undefined ?
            record(Durable.outcomeOf(exit)) :
            durable.ended(server, taskId, exit, record)
        })
      )
    }

    return {
      callTool: (params, options) => {
        const onProgress = options?.onProgress
        return run(
          params,
          options,
          onProgress === undefined
            ? undefined
            : (event) => event._tag === "Progress" ? onProgress(event.progress) : Effect.void
        )
      },
      callToolStream: (params, options) =>
        resultStream((emit) => run(params, options, (event) => Effect.sync(() => emit(event))))
    }
  })
