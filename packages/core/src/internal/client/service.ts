/**
 * The client as one object over its session: each member of
 * `McpClient.Service` is a getter here that hands the work to the feature
 * that owns it: the lists and live views (`client/lists.ts`), the
 * subscriptions and log level (`client/subscriptions.ts`), tool calls and
 * tasks (`client/toolCalls.ts`, `client/tasks.ts`, through
 * `client/clientTasks.ts`), and the era's codec for what differs between
 * the eras. `build` wires a client to the services in the context
 * (`internal/client.ts` starts it on its session).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import type * as JsonRpc from "../../JsonRpc.js"
import type * as McpClient from "../../McpClient.js"
import * as RequestHeaders from "../../RequestHeaders.js"
import * as TaskPolling from "../../TaskPolling.js"
import * as ToolCallLog from "../../ToolCallLog.js"
import * as Codecs from "../era/codecs.js"
import * as Continuations from "../policy/continuationHooks.js"
import { validatorFromContext } from "../policy/validation.js"
import * as CacheHook from "./cacheHook.js"
import { ClientTasks } from "./clientTasks.js"
import * as Durable from "./durableContext.js"
import { Lists, refresh, requireCapability } from "./lists.js"
import * as Results from "./results.js"
import * as ResumeTask from "./resumeTask.js"
import { logMessagesOf, resourceUpdatesOf, Subscriptions } from "./subscriptions.js"
import * as tasks from "./tasks.js"
import * as ToolCalls from "./toolCalls.js"

const decodeGetPrompt = Results.request("prompts/get")
const decodeComplete = Results.request("completion/complete")

/**
 * What the client needs to hear from its session.
 *
 * @internal
 */
export interface Hooks {
  readonly onInitialized: (initialized: ClientSession.Initialized) => Effect.Effect<void>
  readonly onNotification: (notification: JsonRpc.Notification) => Effect.Effect<void> | undefined
}

/** @internal */
export type ClientOptions = Pick<McpClient.Options, "server" | "trusted" | "prefetch">

/** Members of the client built on first read. */
type BuiltMember =
  | "ping"
  | "listTools"
  | "listResources"
  | "listResourceTemplates"
  | "listPrompts"
  | "listTasks"
  | "resourceUpdates"
  | "subscribeResourceUpdates"
  | "logMessages"
  | "subscribeLogMessages"
  | "tools"
  | "resources"
  | "prompts"

/**
 * The client as one object whose members read its fields: the effects are
 * built when read (a getter shared by every client), the functions when read
 * too (an arrow bound to the client, so a member taken off the object still
 * works). A session's client holds its state and no closure per member. The
 * getters are own, enumerable properties of each client (`members` below),
 * so the client survives a spread (`{ ...client }`) like a plain object.
 */
class Client implements McpClient.Service {
  // `session` is assigned before any member runs: they only run after initialization
  session: ClientSession.Service = undefined as never
  readonly lists: Lists
  readonly #subscriptions: Subscriptions
  // a fetch shared in the client's scope: once that is closed, a caller runs its own (and gets the
  // session's typed error, not the interruption of a fiber the closed scope refuses)
  scopeClosed = false
  callTool: McpClient.Service["callTool"] = undefined as never
  // the cacheable requests: through the `ResponseCache` when the context has one
  cache: CacheHook.Hook = CacheHook.none
  callToolStream: McpClient.Service["callToolStream"] = undefined as never
  /** Makes the input rounds of a request durable records, when `Continuations` is in the context. */
  tracker: Continuations.Tracker | undefined = undefined
  readonly durable = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    this.tracker === undefined ? effect : Effect.locally(effect, Continuations.currentTracker, this.tracker)
  readonly tasks: ClientTasks
  /** The members built on first read, then kept (most are seldom used: an idle client holds none). */
  #built: { -readonly [K in BuiltMember]?: McpClient.Service[K] } | undefined

  constructor(
    readonly options: ClientOptions,
    scope: Scope.Scope,
    polling: TaskPolling.Service,
    readonly validator: Effect.Effect.Success<typeof validatorFromContext>,
    requestHeaders: Option.Option<RequestHeaders.RequestHeaders["Type"]>
  ) {
    this.lists = new Lists(this, scope, requestHeaders)
    this.#subscriptions = new Subscriptions(this, scope)
    this.tasks = new ClientTasks(this, polling, Option.isSome(requestHeaders))
  }

  onInitialized(init: ClientSession.Initialized): Effect.Effect<void> {
    const client = this
    return Effect.gen(function*() {
      yield* client.#subscriptions.onInitialized(init, Codecs.of(init.protocolVersion))
      if (client.options.prefetch === false) return
      const caps = init.capabilities
      yield* Effect.all(
        [
          caps.tools ? refresh(client.listTools) : Effect.void,
          caps.resources ? refresh(client.listResources) : Effect.void,
          caps.prompts ? refresh(client.listPrompts) : Effect.void
        ],
        { concurrency: "unbounded", discard: true }
      )
    })
  }

  get droppedTools(): McpClient.Service["droppedTools"] {
    return Effect.sync(() => this.lists.dropped)
  }

  get listTools(): McpClient.Service["listTools"] {
    return (this.#built ??= {}).listTools ??= this.lists.shared("tools/list", this.lists.fetchTools())
  }

  get listResources(): McpClient.Service["listResources"] {
    return (this.#built ??= {}).listResources ??= this.lists.shared("resources/list", this.lists.fetchResources())
  }

  get listPrompts(): McpClient.Service["listPrompts"] {
    return (this.#built ??= {}).listPrompts ??= this.lists.shared("prompts/list", this.lists.fetchPrompts())
  }

  get listResourceTemplates(): McpClient.Service["listResourceTemplates"] {
    return (this.#built ??= {}).listResourceTemplates ??= this.lists.resourceTemplates()
  }

  get tools(): McpClient.Service["tools"] {
    return (this.#built ??= {}).tools ??= this.lists.view(this.lists.tools.ref)
  }

  get resources(): McpClient.Service["resources"] {
    return (this.#built ??= {}).resources ??= this.lists.view(this.lists.resources.ref)
  }

  get prompts(): McpClient.Service["prompts"] {
    return (this.#built ??= {}).prompts ??= this.lists.view(this.lists.prompts.ref)
  }

  get initialized(): McpClient.Service["initialized"] {
    return this.session.initialized
  }

  get state(): McpClient.Service["state"] {
    return this.session.state
  }

  get ping(): McpClient.Service["ping"] {
    // 2026-07-28 has no ping: its liveness check is server/discover, which a server answers at any time
    return (this.#built ??= {}).ping ??= Effect.flatMap(this.session.initialized, (init) => {
      const ping = Codecs.of(init.protocolVersion).ping
      return Effect.asVoid(this.session.request(ping.method, ping.params))
    })
  }

  get readResource(): McpClient.Service["readResource"] {
    return (uri) =>
      requireCapability(this, "resources", "resources/read").pipe(
        Effect.zipRight(this.cache.page(this.session, "resources/read", { uri })),
        this.durable
      )
  }

  get subscribe(): McpClient.Service["subscribe"] {
    return (uri) => this.#subscriptions.subscribe(uri)
  }

  get unsubscribe(): McpClient.Service["unsubscribe"] {
    return (uri) => this.#subscriptions.unsubscribe(uri)
  }

  get resourceUpdates(): McpClient.Service["resourceUpdates"] {
    return (this.#built ??= {}).resourceUpdates ??= Stream.suspend(() => resourceUpdatesOf(this.session.notifications))
  }

  get subscribeResourceUpdates(): McpClient.Service["subscribeResourceUpdates"] {
    return (this.#built ??= {}).subscribeResourceUpdates ??= Effect.map(
      this.session.subscribeNotifications,
      resourceUpdatesOf
    )
  }

  get getPrompt(): McpClient.Service["getPrompt"] {
    return (name, args) =>
      requireCapability(this, "prompts", "prompts/get").pipe(
        Effect.zipRight(
          decodeGetPrompt(this.session, args === undefined ? { name } : { name, arguments: args })
        ),
        this.durable
      )
  }

  get complete(): McpClient.Service["complete"] {
    return (params) =>
      requireCapability(this, "completions", "completion/complete").pipe(
        Effect.zipRight(decodeComplete(this.session, params as Record<string, unknown>))
      )
  }

  get setLoggingLevel(): McpClient.Service["setLoggingLevel"] {
    return (level) =>
      requireCapability(this, "logging", "logging/setLevel").pipe(
        Effect.flatMap((init) => this.#subscriptions.setLoggingLevel(init, level))
      )
  }

  get logMessages(): McpClient.Service["logMessages"] {
    return (this.#built ??= {}).logMessages ??= Stream.suspend(() => logMessagesOf(this.session.notifications))
  }

  get subscribeLogMessages(): McpClient.Service["subscribeLogMessages"] {
    return (this.#built ??= {}).subscribeLogMessages ??= Effect.map(this.session.subscribeNotifications, logMessagesOf)
  }

  get notifications(): McpClient.Service["notifications"] {
    return this.session.notifications
  }

  get subscribeNotifications(): McpClient.Service["subscribeNotifications"] {
    return this.session.subscribeNotifications
  }

  get getTask(): McpClient.Service["getTask"] {
    return (taskId) => tasks.getTask(this.tasks, taskId)
  }

  get listTasks(): McpClient.Service["listTasks"] {
    return (this.#built ??= {}).listTasks ??= this.tasks.listTasks()
  }

  get cancelTask(): McpClient.Service["cancelTask"] {
    return (taskId) => this.tasks.cancelTask(taskId)
  }

  get resumeTask(): McpClient.Service["resumeTask"] {
    return (taskId, options) => ResumeTask.resume(this.tasks, this.tasks.durable, taskId, options)
  }

  get durableTasks(): McpClient.Service["durableTasks"] {
    return this.tasks.taskRecords()
  }

  get getTaskResult(): McpClient.Service["getTaskResult"] {
    return (taskId) => this.tasks.taskResult(taskId)
  }

  get taskStatus(): McpClient.Service["taskStatus"] {
    return (taskId) => tasks.taskStatus(this.tasks, taskId)
  }
}

let ownMembers: PropertyDescriptorMap | undefined

/**
 * The getters of the prototype (the service's members, and only those:
 * the client's other reads are methods or `#private`) as own, enumerable
 * properties of a client, so that `{ ...client }` copies every member (a
 * spread reads own properties only). The getters are the prototype's own functions, shared
 * by every client: each client's properties share one hidden class, not a
 * closure per member.
 */
const members = (): PropertyDescriptorMap => {
  if (ownMembers === undefined) {
    ownMembers = {}
    for (const [name, { get }] of Object.entries(Object.getOwnPropertyDescriptors(Client.prototype))) {
      if (get !== undefined) ownMembers[name] = { get, enumerable: true, configurable: true }
    }
  }
  return ownMembers
}

/** @internal */
export const build = <R>(
  options: ClientOptions,
  start: (hooks: Hooks) => Effect.Effect<ClientSession.Service, never, R | Scope.Scope>
): Effect.Effect<McpClient.Service, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const polling = Option.getOrElse(yield* Effect.serviceOption(TaskPolling.TaskPolling), () => TaskPolling.defaults)
    const scope = yield* Effect.scope
    const validator = yield* validatorFromContext
    const requestHeaders = yield* Effect.serviceOption(RequestHeaders.RequestHeaders)
    const client = new Client(options, scope, polling, validator, requestHeaders)
    const continuations = yield* Effect.serviceOption(Continuations.tag)
    if (Option.isSome(continuations)) {
      // the app's name for the server, else the name it gives (as the call log and approvals have it)
      client.tracker = Continuations.trackerOf(continuations.value, Durable.serverName(client.tasks))
    }
    Object.defineProperties(client, members())
    const cache = yield* Effect.serviceOption(CacheHook.tag)
    if (Option.isSome(cache) && options.server !== undefined) {
      client.cache = yield* cache.value.forServer(options.server)
    }
    // on the scope itself: `Effect.addFinalizer` would keep a copy of this fiber's refs for the client's life
    yield* Scope.addFinalizerExit(scope, () => {
      client.scopeClosed = true
      return Effect.void
    })
    client.session = yield* start({
      onInitialized: (init) => client.onInitialized(init),
      // keep the live views fresh
      onNotification: (notification) => {
        const refreshed = client.lists.refreshOn(notification.method)
        const invalidated = client.cache.invalidate(notification)
        // the entries go first: the refresh must not be served what the notification made wrong
        return invalidated === undefined
          ? refreshed
          : refreshed === undefined
          ? invalidated
          : Effect.zipRight(invalidated, refreshed)
      }
    })
    const durable = yield* Effect.serviceOption(Durable.tag)
    if (Option.isSome(durable)) {
      // a resumed call completes its record in the call history of this client's context
      const log = yield* Effect.serviceOption(ToolCallLog.ToolCallLog)
      client.tasks.durable = durable.value.client(Option.getOrUndefined(log))
    }
    yield* client.cache.watch(client.session)
    const toolCalls = yield* ToolCalls.make(client.tasks)
    client.callTool = client.cache === CacheHook.none ?
      toolCalls.callTool :
      (params, callOptions) => client.cache.guard("tools/call", toolCalls.callTool(params, callOptions))
    client.callToolStream = toolCalls.callToolStream
    return client
  })
