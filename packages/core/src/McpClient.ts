/**
 * The app-facing MCP client: typed methods for every client feature of MCP
 * 2025-11-25 and 2026-07-28 (the era is negotiated per server, see
 * `ClientSession.Options.era`; `layerWith` makes a client of one era that
 * bundles only that era's code), live views of tools, resources and prompts,
 * and task-augmented tool calls. Requires an `McpTransport`; answers sampling, elicitation and
 * roots requests when the app provides those services.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Subscribable from "effect/Subscribable"
import type * as ApprovalPolicy from "./ApprovalPolicy.js"
import type * as Approver from "./Approver.js"
import type * as ClientExtensions from "./ClientExtensions.js"
import type * as ClientSession from "./ClientSession.js"
import type * as DurableTasks from "./DurableTasks.js"
import type * as Elicitation from "./Elicitation.js"
import * as internal from "./internal/client.js"
import type * as Model from "./internal/client/model.js"
import * as Codecs from "./internal/era/codecs.js"
import * as Eras from "./internal/era/eras.js"
import type * as JsonRpc from "./JsonRpc.js"
import type * as JsonSchemaValidator from "./JsonSchemaValidator.js"
import type * as McpError from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type * as McpTransport from "./McpTransport.js"
import type * as ProtocolEra from "./ProtocolEra.js"
import type * as Roots from "./Roots.js"
import type * as Sampling from "./Sampling.js"
import type * as TaskPolling from "./TaskPolling.js"
import type * as ToolCallLog from "./ToolCallLog.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Omit<ClientSession.Options, "handlers" | "capabilities" | "onInitialized"> {
  /**
   * The server's name in this app (a registry key, shown to people asked to
   * approve a call, recorded in the `ToolCallLog`, the key of a
   * `SessionStore`). Default: the name the server gives in `initialize`
   * (and nothing stored).
   */
  readonly server?: string | undefined
  /**
   * Whether this server is trusted: only then do tool annotations
   * (`idempotentHint`, `readOnlyHint`) allow a `tools/call` to be replayed
   * after a reconnect, and only then does an `ApprovalPolicy` in
   * `trusted-only` mode run its calls without asking. Default `false`.
   */
  readonly trusted?: boolean | undefined
  /**
   * Fill the live views of tools, resources and prompts right after each
   * initialization (for the lists the server declares). Default `true`.
   */
  readonly prefetch?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type CallToolOptions = Model.CallToolOptions

/**
 * What a streamed tool call emits: progress and task updates while it runs,
 * then exactly one `Result`.
 *
 * @since 0.1.0
 * @category models
 */
export type CallToolEvent = Model.CallToolEvent

/**
 * A tool of `tools/list` that did not decode: its name (absent when it has
 * none that is a string, at most 128 characters) and the decode error.
 *
 * @since 0.3.0
 * @category models
 */
export type DroppedTool = Model.DroppedTool

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The session underneath, for raw requests. */
  readonly session: ClientSession.Service
  /** Waits for initialization and returns what was agreed (server info, capabilities, version). */
  readonly initialized: Effect.Effect<ClientSession.Initialized, McpError.McpClientError>
  readonly state: Subscribable.Subscribable<ClientSession.ConnectionState>

  /**
   * A liveness check. In the 2025 era `ping`; in 2026-07-28, which has no
   * `ping`, `server/discover` with the era's `_meta` envelope (a server
   * answers it at any time), so the check means the same in both eras.
   */
  readonly ping: Effect.Effect<void, McpError.McpClientError>
  /**
   * All tools, following every page. A tool that does not decode (say, an
   * `inputSchema` whose root is not an object) is left out with a warning
   * in the log, and listed in `droppedTools`; the others are kept.
   */
  readonly listTools: Effect.Effect<ReadonlyArray<McpSchema.Tool>, McpError.McpClientError>
  /**
   * The tools the last `tools/list` left out, each with its name (when it
   * has one) and why.
   *
   * @since 0.3.0
   */
  readonly droppedTools: Effect.Effect<ReadonlyArray<DroppedTool>>
  /** Calls a tool and returns its result; a tool failure is a result with `isError: true`. */
  readonly callTool: (
    params: McpSchema.CallToolRequestParams,
    options?: CallToolOptions
  ) => Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError>
  /** Calls a tool and streams its progress and task status, ending with the result. */
  readonly callToolStream: (
    params: McpSchema.CallToolRequestParams,
    options?: Omit<CallToolOptions, "onProgress">
  ) => Stream.Stream<CallToolEvent, McpError.McpClientError>

  readonly listResources: Effect.Effect<ReadonlyArray<McpSchema.Resource>, McpError.McpClientError>
  readonly listResourceTemplates: Effect.Effect<ReadonlyArray<McpSchema.ResourceTemplate>, McpError.McpClientError>
  readonly readResource: (uri: string) => Effect.Effect<McpSchema.ReadResourceResult, McpError.McpClientError>
  /** Subscribes to updates of a resource; kept across reconnects. */
  readonly subscribe: (uri: string) => Effect.Effect<void, McpError.McpClientError>
  readonly unsubscribe: (uri: string) => Effect.Effect<void, McpError.McpClientError>
  /** `notifications/resources/updated` from the server. Ends when the session closes. */
  readonly resourceUpdates: Stream.Stream<McpSchema.ResourceUpdatedNotificationParams>
  /**
   * `resourceUpdates`, subscribed when the effect returns (for as long as the scope lasts).
   *
   * @since 0.2.0
   */
  readonly subscribeResourceUpdates: Effect.Effect<
    Stream.Stream<McpSchema.ResourceUpdatedNotificationParams>,
    never,
    Scope.Scope
  >

  readonly listPrompts: Effect.Effect<ReadonlyArray<McpSchema.Prompt>, McpError.McpClientError>
  readonly getPrompt: (
    name: string,
    args?: Record<string, string>
  ) => Effect.Effect<McpSchema.GetPromptResult, McpError.McpClientError>
  readonly complete: (
    params: McpSchema.CompleteRequestParams
  ) => Effect.Effect<McpSchema.CompleteResult, McpError.McpClientError>

  /**
   * Sets the server's log level; kept across reconnects. In the 2025 era
   * `logging/setLevel`; in 2026-07-28, which has no such request, the level
   * goes in every later request's `_meta` (`io.modelcontextprotocol/logLevel`).
   * Either way the server must declare the `logging` capability.
   */
  readonly setLoggingLevel: (level: McpSchema.LoggingLevel) => Effect.Effect<void, McpError.McpClientError>
  /** `notifications/message` from the server. Ends when the session closes. */
  readonly logMessages: Stream.Stream<McpSchema.LoggingMessageNotificationParams>
  /**
   * `logMessages`, subscribed when the effect returns (for as long as the scope lasts).
   *
   * @since 0.2.0
   */
  readonly subscribeLogMessages: Effect.Effect<
    Stream.Stream<McpSchema.LoggingMessageNotificationParams>,
    never,
    Scope.Scope
  >
  /** Every notification from the server (except progress). Ends when the session closes. */
  readonly notifications: Stream.Stream<JsonRpc.Notification>
  /**
   * `notifications`, subscribed when the effect returns (for as long as the scope lasts).
   *
   * @since 0.2.0
   */
  readonly subscribeNotifications: Effect.Effect<Stream.Stream<JsonRpc.Notification>, never, Scope.Scope>

  /**
   * Live views, refreshed on `list_changed` (at most one refresh in flight
   * and one queued, however many notifications arrive) and after each
   * reconnect. Their `changes` end when the session closes.
   */
  readonly tools: Subscribable.Subscribable<ReadonlyArray<McpSchema.Tool>>
  readonly resources: Subscribable.Subscribable<ReadonlyArray<McpSchema.Resource>>
  readonly prompts: Subscribable.Subscribable<ReadonlyArray<McpSchema.Prompt>>

  readonly getTask: (taskId: string) => Effect.Effect<McpSchema.Task, McpError.McpClientError>
  readonly listTasks: Effect.Effect<ReadonlyArray<McpSchema.Task>, McpError.McpClientError>
  /**
   * Sends `tasks/cancel`. A task with a durable record (`durableTasks`) is
   * cancelled once, however many processes sharing the store ask: the
   * first marks the record (compare-and-set) and sends the request; the
   * others, and any later cancel, get the task from `tasks/get` instead.
   * With a durable record in 2026-07-28 (whose `tasks/cancel` answers no
   * task), the task is read with `tasks/get` after the cancel.
   */
  readonly cancelTask: (taskId: string) => Effect.Effect<McpSchema.Task, McpError.McpClientError>
  /** The tool result of a finished task (waits while the task is still running). */
  readonly getTaskResult: (taskId: string) => Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError>
  /** Polls a task at the server's `pollInterval` and emits each status until it is terminal. */
  readonly taskStatus: (taskId: string) => Stream.Stream<McpSchema.Task, McpError.McpClientError>
  /**
   * Follows a task-augmented call again by its task id, after a restart or
   * from another process sharing the store of the client's `DurableTasks`
   * (without `DurableTasks.layer`, by the id the app kept): the events of
   * `callToolStream` (`TaskStatus` from `tasks/get`, then the `Result`,
   * checked against the tool's `outputSchema` when the durable record names
   * the tool). 2025-11-25 tasks: the result of `tasks/result`. The
   * 2026-07-28 tasks extension: the task's `result`, or its `error` as a
   * `ProtocolError`; an `input_required` task is answered with this client's
   * handlers through `tasks/update` (a question it has no handler for fails
   * with `ProtocolError` -32601). The call's `ToolCallLog` record is
   * updated, not duplicated, and completed by whichever process gets the
   * result first. Progress notifications reach only the session that made
   * the call. Interrupting stops following; it does not cancel the task
   * (`cancelTask` does). A task the server does not know fails with
   * `TaskNotFound` (its record, if any, is removed).
   *
   * @since 0.4.0
   */
  readonly resumeTask: (
    taskId: string,
    options?: Pick<CallToolOptions, "maxTotalTimeout">
  ) => Stream.Stream<CallToolEvent, McpError.McpClientError | DurableTasks.TaskNotFound>
  /**
   * The durable records of this server's task-augmented calls that have no
   * stored result yet, oldest first, from every process sharing the store
   * (the store of the client's `DurableTasks`; empty without `DurableTasks.layer`).
   *
   * @since 0.4.0
   */
  readonly durableTasks: Effect.Effect<ReadonlyArray<DurableTasks.TaskRecord>, McpError.McpClientError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpClient extends Context.Tag("@mcp-effect/core/McpClient")<McpClient, Service>() {}

/**
 * Starts a client under the scope. Optional services in the context decide
 * the advertised capabilities: `Sampling`, `Elicitation`, `Roots`,
 * `ClientExtensions` (the `extensions` entry), and `TaskPolling` (how tasks
 * are polled). Tool calls go through the
 * `ApprovalPolicy` (asking the `Approver`) and are recorded in the
 * `ToolCallLog` when those are in the context; `structuredContent` and
 * elicitation answers are checked by the `JsonSchemaValidator` in the context
 * (`JsonSchemaValidator.cfworker` when there is none). `DurableTasks`,
 * `Continuations` and `ResponseCache` in the context turn on durable task
 * records, durable input rounds and response caching; each carries its own
 * code, so a client built without them bundles none of it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, never, McpTransport.McpTransport | Scope.Scope> =>
  makeWith(Eras.both, options)

/**
 * `make`, speaking only the given protocol eras (`ProtocolEra2025.era`,
 * `ProtocolEra2026.era`): with one era, the app bundles none of the other's
 * code. `make(options)` is `makeWith([ProtocolEra2026.era,
 * ProtocolEra2025.era], options)`. See `ClientSession.makeWith`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeWith = (
  eras: ReadonlyArray<ProtocolEra.ProtocolEra>,
  options: Options
): Effect.Effect<Service, never, McpTransport.McpTransport | Scope.Scope> => internal.make(options, Eras.codecsOf(eras))

/**
 * The client as a Layer over any `McpTransport`: it connects, initializes
 * and reconnects on its own; requests wait until the session is ready.
 *
 * @example
 * ```ts
 * import { McpClient } from "@mcp-effect/core"
 * import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
 * import { Effect, Layer } from "effect"
 *
 * const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(NodeStdioTransport.layer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }))
 * )
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const result = yield* client.callTool({ name: "echo", arguments: { message: "hi" } })
 *   yield* Effect.log(result.content)
 * })
 *
 * Effect.runPromise(Effect.provide(program, Client))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpClient, never, McpTransport.McpTransport> =>
  Layer.scoped(McpClient, make(options))

/**
 * `layer`, speaking only the given protocol eras: with one era, the app
 * bundles none of the other's code (pair it with an HTTP transport of the
 * same era, `HttpTransport.layerWith`). A server of another era is refused
 * with a typed error: a `ProtocolError` naming the versions each side speaks.
 *
 * @example
 * ```ts
 * import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
 * import * as McpClient from "@mcp-effect/core/McpClient"
 * import * as ProtocolEra2026 from "@mcp-effect/core/ProtocolEra2026"
 * import * as HttpEra2026 from "@mcp-effect/transport-http/HttpEra2026"
 * import * as HttpTransport from "@mcp-effect/transport-http/HttpTransport"
 * import * as Layer from "effect/Layer"
 *
 * // speaks 2026-07-28 only, and bundles none of the 2025 era's code
 * const Client = McpClient.layerWith([ProtocolEra2026.era], { clientInfo: { name: "app", version: "1.0.0" } }).pipe(
 *   Layer.provide(HttpTransport.layerWith([HttpEra2026.era], { url: "https://example.com/mcp" })),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (
  eras: ReadonlyArray<ProtocolEra.ProtocolEra>,
  options: Options
): Layer.Layer<McpClient, never, McpTransport.McpTransport> => Layer.scoped(McpClient, makeWith(eras, options))

/**
 * A client on the `ClientSession` in the context instead of one of its own:
 * the session's options (client info, timeouts, the `server` name it is
 * stored under) and its handlers and capabilities (from the services the
 * session's layer saw) are the session's; `options` set what the client
 * adds (`server`, `trusted`, `prefetch`). The client follows the session's
 * notifications through a subscription, so a `list_changed` can be lost
 * only if it falls `notificationCapacity` behind. The client knows both
 * protocol eras, whatever session it is on (a test double included).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromSession = (
  options: Pick<Options, "server" | "trusted" | "prefetch">
): Effect.Effect<Service, never, ClientSession.ClientSession | Scope.Scope> =>
  Effect.zipRight(
    // a session not made by `ClientSession.make*` registered no codec: the client reads the codec of its version
    Effect.sync(() => Codecs.register(Eras.both)),
    internal.fromSession(options)
  )

/**
 * `fromSession` as a layer: `McpClient.layerOnSession({}).pipe(Layer.provide(ClientSession.layer(...)))`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerOnSession = (
  options: Pick<Options, "server" | "trusted" | "prefetch"> = {}
): Layer.Layer<McpClient, never, ClientSession.ClientSession> => Layer.scoped(McpClient, fromSession(options))

/**
 * @since 0.1.0
 * @category type-level
 */
export type HandlerServices =
  | Sampling.Sampling
  | Elicitation.Elicitation
  | Roots.Roots
  | TaskPolling.TaskPolling
  | ApprovalPolicy.ApprovalPolicy
  | Approver.Approver
  | ToolCallLog.ToolCallLog
  | JsonSchemaValidator.JsonSchemaValidator
  | ClientExtensions.ClientExtensions
