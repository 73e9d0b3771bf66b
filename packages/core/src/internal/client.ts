import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as ClientSession from "../ClientSession.js"
import type * as JsonRpc from "../JsonRpc.js"
import type * as McpClient from "../McpClient.js"
import * as McpError from "../McpError.js"
import * as McpSchema from "../McpSchema.js"
import type { McpTransport } from "../McpTransport.js"
import * as RequestHeaders from "../RequestHeaders.js"
import * as TaskPolling from "../TaskPolling.js"
import * as ToolCallLog from "../ToolCallLog.js"
import * as CacheHook from "./client/cacheHook.js"
import * as Durable from "./client/durableContext.js"
import { coalesced, LiveView } from "./client/liveView.js"
import * as Results from "./client/results.js"
import * as ResumeTask from "./client/resumeTask.js"
import * as SingleFlight from "./client/singleFlight.js"
import * as tasks from "./client/tasks.js"
import * as ToolCalls from "./client/toolCalls.js"
import * as ToolList from "./client/toolList.js"
import { decoder, paginate } from "./engine/decode.js"
import type * as LazySubscriptionRef from "./engine/lazySubscriptionRef.js"
import type { EraCodec } from "./era/codec.js"
import * as Codecs from "./era/codecs.js"
import * as Listen from "./era/listen.js"
import * as Handlers from "./handlers.js"
import * as Continuations from "./policy/continuationHooks.js"
import { checkStructuredContent, validatorFromContext } from "./policy/validation.js"
import * as Session from "./session.js"

const decodeGetPrompt = Results.request("prompts/get")
const decodeComplete = Results.request("completion/complete")
const decodeResourceUpdated = decoder(McpSchema.ResourceUpdatedNotificationParams)
const decodeLogMessage = decoder(McpSchema.LoggingMessageNotificationParams)

type Capability = "tools" | "resources" | "prompts" | "logging" | "completions"

/** What the client needs to hear from its session. */
interface Hooks {
  readonly onInitialized: (initialized: ClientSession.Initialized) => Effect.Effect<void>
  readonly onNotification: (notification: JsonRpc.Notification) => Effect.Effect<void> | undefined
}

/** @internal */
export const make = (
  options: McpClient.Options,
  codecs: ReadonlyArray<EraCodec>
): Effect.Effect<McpClient.Service, never, McpTransport | Scope.Scope> =>
  Effect.flatMap(Handlers.fromContext, (fromContext) =>
    build(options, (hooks) =>
      Session.make({
        ...options,
        capabilities: fromContext.capabilities,
        handlers: fromContext.handlers,
        onInitialized: hooks.onInitialized,
        // the app's own hook runs too (it sees what arrives before any subscriber, e.g. replayed events)
        onNotification: options.onNotification === undefined
          ? hooks.onNotification
          : both(options.onNotification, hooks.onNotification)
      }, codecs).pipe(Effect.tap(fromContext.announceRoots))))

const both = (
  first: NonNullable<ClientSession.Options["onNotification"]>,
  second: Hooks["onNotification"]
): Hooks["onNotification"] =>
(notification) => {
  const a = first(notification)
  const b = second(notification)
  return a === undefined ? b : b === undefined ? a : Effect.zipRight(a, b)
}

/**
 * A client on a session that already runs (its handlers and capabilities
 * are the session's): it follows the session's states and notifications.
 *
 * @internal
 */
export const fromSession = (
  options: ClientOptions
): Effect.Effect<McpClient.Service, never, ClientSession.ClientSession | Scope.Scope> =>
  build(options, (hooks) =>
    Effect.gen(function*() {
      const session = yield* ClientSession.ClientSession
      const notifications = yield* session.subscribeNotifications
      yield* notifications.pipe(
        Stream.runForEach((notification) => hooks.onNotification(notification) ?? Effect.void),
        Effect.forkScoped
      )
      // `changes` starts with the current state: a session that is ready already is seen
      yield* session.state.changes.pipe(
        Stream.runForEach((state) =>
          state._tag === "Ready"
            ? Effect.asVoid(Effect.forkScoped(hooks.onInitialized(state.initialized)))
            : Effect.void
        ),
        Effect.forkScoped
      )
      return session
    }))

type ClientOptions = Pick<McpClient.Options, "server" | "trusted" | "prefetch">

/** The tool index before the first list: one empty map for every client (an empty `Map` is ~0.15 KiB). */
const noTools: ReadonlyMap<string, McpSchema.Tool> = new Map()

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

const refresh = (effect: Effect.Effect<unknown, McpError.McpClientError>) =>
  Effect.catchAll(effect, (error) => Effect.logDebug("mcp: could not refresh a list", error.message))

const paramsOf = <A>(
  method: string,
  decode: (u: unknown) => Effect.Effect<A, unknown>,
  notifications: Stream.Stream<JsonRpc.Notification>
): Stream.Stream<A> =>
  notifications.pipe(
    Stream.filter((n) => n.method === method),
    // (not `Stream.mapEffect`: it brings `Stream.groupByKey`'s machinery into a browser bundle)
    Stream.flatMap((n) => Stream.fromEffectOption(Effect.mapError(decode(n.params ?? {}), () => Option.none())))
  )

const logMessagesOf = (notifications: Stream.Stream<JsonRpc.Notification>) =>
  paramsOf("notifications/message", decodeLogMessage, notifications)
const resourceUpdatesOf = (notifications: Stream.Stream<JsonRpc.Notification>) =>
  paramsOf("notifications/resources/updated", decodeResourceUpdated, notifications)

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
  readonly #tools = new LiveView<McpSchema.Tool>()
  readonly #resources = new LiveView<McpSchema.Resource>()
  readonly #prompts = new LiveView<McpSchema.Prompt>()
  readonly #subscriptions = new Set<string>()
  #loggingLevel: McpSchema.LoggingLevel | undefined
  toolIndex: ReadonlyMap<string, McpSchema.Tool> = noTools
  #droppedTools: ReadonlyArray<McpClient.DroppedTool> = []
  readonly #singleFlight: SingleFlight.SingleFlight
  // a fetch shared in the client's scope: once that is closed, a caller runs its own (and gets the
  // session's typed error, not the interruption of a fiber the closed scope refuses)
  scopeClosed = false
  // the modern era's subscriptions/listen, made on first use: only a server of the modern era has it
  #listener: ReturnType<typeof Listen.make> | undefined
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

  readonly #scope: Scope.Scope
  // over HTTP: tools with invalid x-mcp-header annotations are left out, the others' headers remembered
  readonly #requestHeaders: Option.Option<RequestHeaders.RequestHeaders["Type"]>

  constructor(
    readonly options: ClientOptions,
    scope: Scope.Scope,
    polling: TaskPolling.Service,
    readonly validator: Effect.Effect.Success<typeof validatorFromContext>,
    requestHeaders: Option.Option<RequestHeaders.RequestHeaders["Type"]>
  ) {
    this.#scope = scope
    this.#requestHeaders = requestHeaders
    this.#singleFlight = SingleFlight.make(scope)
    this.tasks = new ClientTasks(this, polling, Option.isSome(requestHeaders))
  }

  /** The codec of the era the server speaks. */
  get #codec(): Effect.Effect<EraCodec, McpError.McpClientError> {
    return Effect.map(this.session.initialized, (init) => Codecs.of(init.protocolVersion))
  }

  /** A method one era lacks (the method table says which): fails at once with a server of that era. */
  #existing(method: string): Effect.Effect<ClientSession.Initialized, McpError.McpClientError> {
    return Effect.flatMap(this.session.initialized, (init) =>
      Codecs.of(init.protocolVersion).exists(method) ?
        Effect.succeed(init) :
        Effect.fail(
          new McpError.UnsupportedCapability({ capability: method, method, protocolVersion: init.protocolVersion })
        ))
  }

  #requireCapability(
    capability: Capability,
    method: string
  ): Effect.Effect<ClientSession.Initialized, McpError.McpClientError> {
    return Effect.flatMap(this.cache.initialized(this.session), (init) =>
      init.capabilities[capability] === undefined ?
        Effect.fail(new McpError.UnsupportedCapability({ capability, method })) :
        Effect.succeed(init))
  }

  // the fetches refresh the live views; callers share a fetch in flight, but a
  // list_changed always starts a new one (the one in flight may predate the change)
  fetchTools(): Effect.Effect<ReadonlyArray<McpSchema.Tool>, McpError.McpClientError> {
    return this.#tools.latest(
      this.#requireCapability("tools", "tools/list").pipe(
        Effect.zipRight(Effect.suspend(() => {
          const dropped: Array<McpClient.DroppedTool> = []
          return paginate(
            (cursor) => this.cache.page(this.session, "tools/list", cursor),
            (r) => ToolList.sort(r.tools, dropped)
          )
            .pipe(
              Effect.tap(() => {
                this.#droppedTools = dropped
                return ToolList.warn(dropped)
              })
            )
        })),
        Effect.flatMap((tools) =>
          Option.isSome(this.#requestHeaders) ? this.#requestHeaders.value.register(tools) : Effect.succeed(tools)
        )
      ),
      (tools) => {
        this.toolIndex = new Map(tools.map((tool) => [tool.name, tool]))
        return this.#tools.ref.set(tools)
      }
    )
  }

  get #fetchResources(): Effect.Effect<ReadonlyArray<McpSchema.Resource>, McpError.McpClientError> {
    return this.#resources.latest(
      this.#requireCapability("resources", "resources/list").pipe(
        Effect.zipRight(
          paginate((cursor) => this.cache.page(this.session, "resources/list", cursor), (r) => r.resources)
        )
      )
    )
  }

  get #fetchPrompts(): Effect.Effect<ReadonlyArray<McpSchema.Prompt>, McpError.McpClientError> {
    return this.#prompts.latest(
      this.#requireCapability("prompts", "prompts/list").pipe(
        Effect.zipRight(paginate((cursor) => this.cache.page(this.session, "prompts/list", cursor), (r) => r.prompts))
      )
    )
  }

  #shared<A, E>(key: string, fetch: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.flatMap(
      CacheHook.alone,
      (alone) => alone || this.scopeClosed ? fetch : this.#singleFlight(key, fetch)
    )
  }

  get droppedTools(): McpClient.Service["droppedTools"] {
    return Effect.sync(() => this.#droppedTools)
  }

  get listTools(): McpClient.Service["listTools"] {
    return (this.#built ??= {}).listTools ??= this.#shared("tools/list", this.fetchTools())
  }

  get listResources(): McpClient.Service["listResources"] {
    return (this.#built ??= {}).listResources ??= this.#shared("resources/list", this.#fetchResources)
  }

  get listPrompts(): McpClient.Service["listPrompts"] {
    return (this.#built ??= {}).listPrompts ??= this.#shared("prompts/list", this.#fetchPrompts)
  }

  refreshOn(method: string): Effect.Effect<void> | undefined {
    switch (method) {
      case "notifications/tools/list_changed":
        return this.#tools.onChanged ??= coalesced(refresh(this.fetchTools()), this.#scope)
      case "notifications/resources/list_changed":
        return this.#resources.onChanged ??= coalesced(refresh(this.#fetchResources), this.#scope)
      case "notifications/prompts/list_changed":
        return this.#prompts.onChanged ??= coalesced(refresh(this.#fetchPrompts), this.#scope)
      default:
        return undefined
    }
  }

  #listen(init: ClientSession.Initialized): Effect.Effect<void, McpError.McpClientError> {
    return Effect.suspend(() =>
      (this.#listener ??= Codecs.listener(() => this.session, this.#scope)).update(
        Listen.filterOf(init.capabilities, this.#subscriptions)
      )
    )
  }

  onInitialized(init: ClientSession.Initialized): Effect.Effect<void> {
    const client = this
    const codec = Codecs.of(init.protocolVersion)
    return Effect.gen(function*() {
      if (codec.subscriptions === "listen") {
        yield* Effect.forkIn(refresh(client.#listen(init)), client.#scope)
      } else if (init.restored !== undefined) {
        // the server still holds them for the resumed session: only remembered for a later new session
        for (const uri of init.restored.subscriptions) client.#subscriptions.add(uri)
        client.#loggingLevel = init.restored.loggingLevel
      }
      // the level rides on every request: a session that reached this era from the other one gets it now
      if (codec.logLevel === "meta" && client.#loggingLevel !== undefined) {
        Session.setLogLevel(client.session, client.#loggingLevel)
      }
      if (init.generation > 1 && codec.subscriptions === "subscribe") {
        for (const uri of client.#subscriptions) {
          yield* refresh(client.session.request("resources/subscribe", { uri }))
        }
      }
      if (init.generation > 1 && codec.logLevel === "request" && client.#loggingLevel !== undefined) {
        yield* refresh(client.session.request("logging/setLevel", { level: client.#loggingLevel }))
      }
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

  findTool(name: string): Effect.Effect<McpSchema.Tool | undefined, McpError.McpClientError> {
    const client = this
    return Effect.gen(function*() {
      const cached = client.toolIndex.get(name)
      if (cached) return cached
      const init = yield* client.session.initialized
      if (!init.capabilities.tools) return undefined
      // a fetch of its own: a list already in flight (maybe stalled) must not hold up the call
      return (yield* Effect.orElseSucceed(client.fetchTools(), () => [])).find((tool) => tool.name === name)
    })
  }

  // the live views end with the session, like every other stream
  // (streams are built when run: a session holds none of their stages until then)
  #readonlyView<A>(ref: LazySubscriptionRef.LazySubscriptionRef<A>): Subscribable.Subscribable<A> {
    return Subscribable.make({
      get: ref.get,
      changes: Stream.suspend(() => Stream.interruptWhen(ref.changes, this.session.closed))
    })
  }

  get initialized(): McpClient.Service["initialized"] {
    return this.session.initialized
  }

  get state(): McpClient.Service["state"] {
    return this.session.state
  }

  get ping(): McpClient.Service["ping"] {
    // 2026-07-28 has no ping: its liveness check is server/discover, which a server answers at any time
    return (this.#built ??= {}).ping ??= Effect.flatMap(
      this.#codec,
      (codec) => Effect.asVoid(this.session.request(codec.ping.method, codec.ping.params))
    )
  }

  get listResourceTemplates(): McpClient.Service["listResourceTemplates"] {
    return (this.#built ??= {}).listResourceTemplates ??= Effect.suspend(() =>
      this.#requireCapability("resources", "resources/templates/list").pipe(
        Effect.zipRight(
          paginate(
            (cursor) => this.cache.page(this.session, "resources/templates/list", cursor),
            (r) => r.resourceTemplates
          )
        )
      )
    )
  }

  get readResource(): McpClient.Service["readResource"] {
    return (uri) =>
      this.#requireCapability("resources", "resources/read").pipe(
        Effect.zipRight(this.cache.page(this.session, "resources/read", { uri })),
        this.durable
      )
  }

  get subscribe(): McpClient.Service["subscribe"] {
    return (uri) =>
      Effect.flatMap(this.session.initialized, (init) => {
        if (!init.capabilities.resources?.subscribe) {
          return Effect.fail(
            new McpError.UnsupportedCapability({ capability: "resources.subscribe", method: "resources/subscribe" })
          )
        }
        if (Codecs.of(init.protocolVersion).subscriptions === "listen") {
          // the listen request is opened again with the URI added; a refusal takes it out again
          return Effect.sync(() => this.#subscriptions.add(uri)).pipe(
            Effect.zipRight(this.#listen(init)),
            Effect.tapError(() => Effect.sync(() => this.#subscriptions.delete(uri)))
          )
        }
        return Effect.asVoid(this.session.request("resources/subscribe", { uri })).pipe(
          Effect.tap(() => Effect.sync(() => this.#subscriptions.add(uri)))
        )
      })
  }

  get unsubscribe(): McpClient.Service["unsubscribe"] {
    return (uri) =>
      Effect.sync(() => this.#subscriptions.delete(uri)).pipe(
        Effect.zipRight(this.session.initialized),
        Effect.flatMap((init) =>
          Codecs.of(init.protocolVersion).subscriptions === "listen" ?
            this.#listen(init) :
            Effect.asVoid(this.session.request("resources/unsubscribe", { uri }))
        )
      )
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
      this.#requireCapability("prompts", "prompts/get").pipe(
        Effect.zipRight(
          decodeGetPrompt(this.session, args === undefined ? { name } : { name, arguments: args })
        ),
        this.durable
      )
  }

  get complete(): McpClient.Service["complete"] {
    return (params) =>
      this.#requireCapability("completions", "completion/complete").pipe(
        Effect.zipRight(decodeComplete(this.session, params as Record<string, unknown>))
      )
  }

  get setLoggingLevel(): McpClient.Service["setLoggingLevel"] {
    return (level) =>
      this.#requireCapability("logging", "logging/setLevel").pipe(
        Effect.flatMap((init) => {
          const codec = Codecs.of(init.protocolVersion)
          if (codec.logLevel === "request") return Effect.asVoid(this.session.request("logging/setLevel", { level }))
          // 2026-07-28: no request; every later request carries the level in its _meta
          return Session.setLogLevel(this.session, level) ?
            Effect.void :
            Effect.fail(
              new McpError.UnsupportedCapability({
                capability: "logging",
                method: "logging/setLevel",
                protocolVersion: init.protocolVersion
              })
            )
        }),
        Effect.tap(() => Effect.sync(() => this.#loggingLevel = level))
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

  get tools(): McpClient.Service["tools"] {
    return (this.#built ??= {}).tools ??= this.#readonlyView(this.#tools.ref)
  }

  get resources(): McpClient.Service["resources"] {
    return (this.#built ??= {}).resources ??= this.#readonlyView(this.#resources.ref)
  }

  get prompts(): McpClient.Service["prompts"] {
    return (this.#built ??= {}).prompts ??= this.#readonlyView(this.#prompts.ref)
  }

  get getTask(): McpClient.Service["getTask"] {
    return (taskId) => tasks.getTask(this.tasks, taskId)
  }

  // the tasks extension of 2026-07-28 has neither tasks/list nor tasks/result
  get listTasks(): McpClient.Service["listTasks"] {
    return (this.#built ??= {}).listTasks ??= this.#existing("tasks/list").pipe(
      Effect.zipRight(tasks.listTasks(this.tasks))
    )
  }

  // a client with `DurableTasks` cancels through its task records
  get cancelTask(): McpClient.Service["cancelTask"] {
    return (taskId) => {
      const durable = this.tasks.durable
      return durable === undefined ? tasks.cancelTask(this.tasks, taskId) : durable.cancel(this.tasks, taskId)
    }
  }

  get resumeTask(): McpClient.Service["resumeTask"] {
    return (taskId, options) => ResumeTask.resume(this.tasks, this.tasks.durable, taskId, options)
  }

  get durableTasks(): McpClient.Service["durableTasks"] {
    const durable = this.tasks.durable
    return durable === undefined ?
      Effect.succeed([]) :
      Effect.flatMap(Durable.serverName(this.tasks), durable.list)
  }

  get getTaskResult(): McpClient.Service["getTaskResult"] {
    return (taskId) => this.#existing("tasks/result").pipe(Effect.zipRight(tasks.getTaskResult(this.tasks, taskId)))
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

/** What the task and tool-call paths read of the client, as methods of one object. */
class ClientTasks implements Durable.ClientContext, ToolCalls.ToolCallContext {
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
    checkStructuredContent(this.client.validator, this.client.toolIndex.get(name), result)

  constructor(readonly client: Client, readonly polling: TaskPolling.Service, headers: boolean) {
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
                Effect.orElseFail(client.fetchTools(), () => error),
                tasks.callTool(this, params, callOptions)
              )
          )
        ) :
      (params, callOptions) => tasks.callTool(this, params, callOptions)
    this.call = (params, callOptions) => client.durable(call(params, callOptions))
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
    return this.client.toolIndex.get(name)
  }

  findTool(name: string): Effect.Effect<McpSchema.Tool | undefined, McpError.McpClientError> {
    return this.client.findTool(name)
  }
}

const build = <R>(
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
        const refreshed = client.refreshOn(notification.method)
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
