/**
 * What the task and tool-call paths (`tasks.ts`, `toolCalls.ts`,
 * `durableContext.ts`) read of the client, as methods of one object: the
 * session, the tool index, the task records, the call with its one resend
 * after a header mismatch, and the input rounds made durable; and the task
 * methods of the client, which check that the server's era has them.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import type * as DurableTasks from "../../DurableTasks.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as TaskPolling from "../../TaskPolling.js"
import * as Codecs from "../era/codecs.js"
import * as Continuations from "../policy/continuationHooks.js"
import { checkStructuredContent, type validatorFromContext } from "../policy/validation.js"
import * as Durable from "./durableContext.js"
import type { Lists } from "./lists.js"
import * as tasks from "./tasks.js"
import type * as ToolCalls from "./toolCalls.js"

/**
 * What the task paths read of their client.
 *
 * @internal
 */
export interface ClientTasksHost {
  readonly options: { readonly server?: string | undefined; readonly trusted?: boolean | undefined }
  readonly session: ClientSession.Service
  readonly lists: Lists
  readonly validator: Effect.Effect.Success<typeof validatorFromContext>
  /** Makes the input rounds of a request durable records, when `Continuations` is in the context. */
  readonly tracker: Continuations.Tracker | undefined
  readonly durable: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** @internal */
export class ClientTasks implements Durable.ClientContext, ToolCalls.ToolCallContext {
  readonly server: string | undefined
  // set once, while the client is built: the task records, with `DurableTasks` in the context
  durable: Durable.Records | undefined
  readonly trusted: boolean
  // functions of their own (the call path and `ToolCalls` pass them on unbound)
  readonly call: ToolCalls.ToolCallContext["call"]
  readonly stream: ToolCalls.ToolCallContext["stream"] = (params, callOptions) =>
    this.client.tracker === undefined ?
      tasks.callToolStream(this, params, callOptions) :
      // the call's fiber is forked when the stream starts, and inherits the tracker set here
      Stream.unwrapScoped(
        Effect.as(
          Effect.locallyScoped(Continuations.currentTracker, this.client.tracker),
          tasks.callToolStream(this, params, callOptions)
        )
      )
  // the tool as listed after the call: a call of a tool the client did not know has just fetched the list
  readonly validate = (name: string, result: McpSchema.CallToolResult) =>
    checkStructuredContent(this.client.validator, this.client.lists.toolIndex.get(name), result)

  constructor(readonly client: ClientTasksHost, readonly polling: TaskPolling.Service, headers: boolean) {
    this.server = client.options.server
    this.trusted = client.options.trusted ?? false
    const call: ToolCalls.ToolCallContext["call"] = headers ?
      (params, callOptions) =>
        tasks.callTool(this, params, callOptions).pipe(
          // over HTTP, a HeaderMismatch means the tool's x-mcp-header annotations changed: the server
          // refused the call before running it, so it is sent again once with the headers of a fresh list
          Effect.catchIf(
            (error) => error._tag === "ProtocolError" && error.code === McpError.ErrorCode.HeaderMismatch,
            (error) =>
              Effect.zipRight(
                Effect.orElseFail(client.lists.fetchTools(), () => error),
                tasks.callTool(this, params, callOptions)
              )
          )
        ) :
      (params, callOptions) => tasks.callTool(this, params, callOptions)
    this.call = (params, callOptions) => client.durable(call(params, callOptions))
  }

  /** A method one era lacks (the method table says which): fails at once with a server of that era. */
  #existing(method: string): Effect.Effect<ClientSession.Initialized, McpError.McpClientError> {
    const session = this.client.session
    return Effect.flatMap(session.initialized, (init) =>
      Codecs.of(init.protocolVersion).exists(method) ?
        Effect.succeed(init) :
        Effect.fail(
          new McpError.UnsupportedCapability({ capability: method, method, protocolVersion: init.protocolVersion })
        ))
  }

  // the tasks extension of 2026-07-28 has neither tasks/list nor tasks/result
  listTasks(): Effect.Effect<ReadonlyArray<McpSchema.Task>, McpError.McpClientError> {
    return this.#existing("tasks/list").pipe(Effect.zipRight(tasks.listTasks(this)))
  }

  taskResult(taskId: string): Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError> {
    return this.#existing("tasks/result").pipe(Effect.zipRight(tasks.getTaskResult(this, taskId)))
  }

  // a client with `DurableTasks` cancels through its task records
  cancelTask(taskId: string): Effect.Effect<McpSchema.Task, McpError.McpClientError> {
    const durable = this.durable
    return durable === undefined ? tasks.cancelTask(this, taskId) : durable.cancel(this, taskId)
  }

  /** The task records of this client's server (none without `DurableTasks`). */
  taskRecords(): Effect.Effect<ReadonlyArray<DurableTasks.TaskRecord>, McpError.McpClientError> {
    const durable = this.durable
    return durable === undefined ? Effect.succeed([]) : Effect.flatMap(Durable.serverName(this), durable.list)
  }

  // an interrupted call of a client with task records cancels its task once, whoever else cancels it
  get cancelOnce(): tasks.TaskContext["cancelOnce"] {
    const durable = this.durable
    return durable === undefined ? undefined : (taskId) => durable.cancel(this, taskId)
  }

  session(): ClientSession.Service {
    return this.client.session
  }

  cachedTool(name: string): McpSchema.Tool | undefined {
    return this.client.lists.toolIndex.get(name)
  }

  findTool(name: string): Effect.Effect<McpSchema.Tool | undefined, McpError.McpClientError> {
    return this.client.lists.findTool(name)
  }
}
