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
import * as LazySubscriptionRef from "./lazySubscriptionRef.js"
import * as SingleFlight from "./singleFlight.js"
import * as TaskPolling from "../TaskPolling.js"
import { decodeResult, decoder, paginate } from "./decode.js"
import * as tasks from "./tasks.js"
import * as ToolCalls from "./toolCalls.js"
import * as Handlers from "./handlers.js"
import { checkStructuredContent, validatorFromContext } from "./validation.js"
import * as Listen from "./era/listen.js"
import { isModernVersion } from "./era/negotiation.js"

const decodeListTools = decodeResult(McpSchema.ListToolsResult)
const decodeListResources = decodeResult(McpSchema.ListResourcesResult)
const decodeListTemplates = decodeResult(McpSchema.ListResourceTemplatesResult)
const decodeListPrompts = decodeResult(McpSchema.ListPromptsResult)
const decodeReadResource = decodeResult(McpSchema.ReadResourceResult)
const decodeGetPrompt = decodeResult(McpSchema.GetPromptResult)
const decodeComplete = decodeResult(McpSchema.CompleteResult)
const decodeResourceUpdated = decoder(McpSchema.ResourceUpdatedNotificationParams)
const decodeLogMessage = decoder(McpSchema.LoggingMessageNotificationParams)

type Capability = "tools" | "resources" | "prompts" | "logging" | "completions"

/**
 * Applies a fetched list to its view only when no fetch that started later
 * has been applied: an older fetch finishing last never overwrites a newer view.
 */
const latestView = <A>(apply: (list: A) => Effect.Effect<void>) => {
  let started = 0
  let applied = 0
  return <E, R>(fetch: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const ticket = ++started
      return Effect.tap(fetch, (list) => {
        if (ticket < applied) return Effect.void
        applied = ticket
        return apply(list)
      })
    })
}

/**
 * Runs `effect` in the background when asked, at most once at a time: asked
 * again while it runs, it runs once more after (however often it was asked).
 */
const coalesced = (effect: Effect.Effect<void>, scope: Scope.Scope): Effect.Effect<void> => {
  let running = false
  let again = false
  const loop: Effect.Effect<void> = Effect.zipRight(
    effect,
    Effect.suspend(() => {
      if (!again) {
        running = false
        return Effect.void
      }
      again = false
      return loop
    })
  )
  return Effect.suspend(() => {
    if (running) {
      again = true
      return Effect.void
    }
    running = true
    return Effect.asVoid(Effect.forkIn(loop, scope))
  })
}

/**
 * An effect built on its first run, then kept: a session holds one small
 * suspension instead of the whole pipeline until (and unless) it is used.
 */
const builtOnUse = <A, E, R>(build: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  let built: Effect.Effect<A, E, R> | undefined
  return Effect.suspend(() => built ??= build())
}

/** What the client needs to hear from its session. */
interface Hooks {
  readonly onInitialized: (initialized: ClientSession.Initialized) => Effect.Effect<void>
  readonly onNotification: (notification: JsonRpc.Notification) => Effect.Effect<void> | undefined
}

/** @internal */
export const make = (
  options: McpClient.Options
): Effect.Effect<McpClient.Service, never, McpTransport | Scope.Scope> =>
  Effect.flatMap(Handlers.fromContext, (fromContext) =>
    build(options, (hooks) =>
      ClientSession.make({
        ...options,
        capabilities: fromContext.capabilities,
        handlers: fromContext.handlers,
        onInitialized: hooks.onInitialized,
        // the app's own hook runs too (it sees what arrives before any subscriber, e.g. replayed events)
        onNotification: options.onNotification === undefined ? hooks.onNotification : both(options.onNotification, hooks.onNotification)
      }).pipe(Effect.tap(fromContext.announceRoots))))

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
          state._tag === "Ready" ? Effect.asVoid(Effect.forkScoped(hooks.onInitialized(state.initialized))) : Effect.void
        ),
        Effect.forkScoped
      )
      return session
    }))

/** Members of the client built on first read. */
type LazyMember = "resourceUpdates" | "logMessages" | "tools" | "resources" | "prompts"

type ClientOptions = Pick<McpClient.Options, "server" | "trusted" | "prefetch">

const build = <R>(
  options: ClientOptions,
  start: (hooks: Hooks) => Effect.Effect<ClientSession.Service, never, R | Scope.Scope>
): Effect.Effect<McpClient.Service, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const polling = Option.getOrElse(yield* Effect.serviceOption(TaskPolling.TaskPolling), () => TaskPolling.defaults)
    const scope = yield* Effect.scope
    const validator = yield* validatorFromContext
    // over HTTP: tools with invalid x-mcp-header annotations are left out, the others' headers remembered
    const requestHeaders = yield* Effect.serviceOption(RequestHeaders.RequestHeaders)

    // the live views hold a SubscriptionRef only once something follows their changes
    const toolsRef = LazySubscriptionRef.make<ReadonlyArray<McpSchema.Tool>>([])
    const resourcesRef = LazySubscriptionRef.make<ReadonlyArray<McpSchema.Resource>>([])
    const promptsRef = LazySubscriptionRef.make<ReadonlyArray<McpSchema.Prompt>>([])
    const subscriptions = new Set<string>()
    let loggingLevel: McpSchema.LoggingLevel | undefined

    // `session` is assigned before any of these run: they only run after initialization.
    let session: ClientSession.Service = undefined as never

    /** A method the modern era removed: fails at once with a server of that era. */
    const legacyOnly = (method: string) =>
      Effect.suspend(() =>
        Effect.flatMap(session.initialized, (init) =>
          isModernVersion(init.protocolVersion) ?
            Effect.fail(
              new McpError.UnsupportedCapability({ capability: method, method, protocolVersion: init.protocolVersion })
            ) :
            Effect.succeed(init))
      )

    const requireCapability = (capability: Capability, method: string) =>
      Effect.suspend(() =>
        Effect.flatMap(session.initialized, (init) =>
          init.capabilities[capability] === undefined ?
            Effect.fail(new McpError.UnsupportedCapability({ capability, method })) :
            Effect.succeed(init))
      )

    // the fetches refresh the live views; callers share a fetch in flight, but a
    // list_changed always starts a new one (the one in flight may predate the change)
    let toolIndex = new Map<string, McpSchema.Tool>()
    const fetchTools = builtOnUse(() =>
      requireCapability("tools", "tools/list").pipe(
        Effect.zipRight(paginate((cursor) => decodeListTools(session, "tools/list", cursor), (r) => r.tools)),
        Effect.flatMap((tools) => Option.isSome(requestHeaders) ? requestHeaders.value.register(tools) : Effect.succeed(tools)),
        latestView((tools) => {
          toolIndex = new Map(tools.map((tool) => [tool.name, tool]))
          return toolsRef.set(tools)
        })
      )
    )
    const fetchResources = builtOnUse(() =>
      requireCapability("resources", "resources/list").pipe(
        Effect.zipRight(
          paginate((cursor) => decodeListResources(session, "resources/list", cursor), (r) => r.resources)
        ),
        latestView((list) => resourcesRef.set(list))
      )
    )
    const fetchPrompts = builtOnUse(() =>
      requireCapability("prompts", "prompts/list").pipe(
        Effect.zipRight(paginate((cursor) => decodeListPrompts(session, "prompts/list", cursor), (r) => r.prompts)),
        latestView((list) => promptsRef.set(list))
      )
    )
    const singleFlight = SingleFlight.make(scope)
    // a fetch shared in the client's scope: once that is closed, a caller runs its own (and gets the
    // session's typed error, not the interruption of a fiber the closed scope refuses)
    let scopeClosed = false
    // on the scope itself: `Effect.addFinalizer` would keep a copy of this fiber's refs for the client's life
    yield* Scope.addFinalizer(scope, Effect.sync(() => scopeClosed = true))
    const shared = <A, E>(key: string, fetch: Effect.Effect<A, E>) =>
      Effect.suspend(() => scopeClosed ? fetch : singleFlight(key, fetch))
    const listTools = shared("tools/list", fetchTools)
    const listResources = shared("resources/list", fetchResources)
    const listPrompts = shared("prompts/list", fetchPrompts)

    const refresh = (effect: Effect.Effect<unknown, McpError.McpClientError>) =>
      Effect.catchAll(effect, (error) => Effect.logDebug("mcp: could not refresh a list", error.message))

    // each made on the first list_changed of its kind
    let refreshTools: Effect.Effect<void> | undefined
    let refreshResources: Effect.Effect<void> | undefined
    let refreshPrompts: Effect.Effect<void> | undefined
    const refreshOn = (method: string): Effect.Effect<void> | undefined => {
      switch (method) {
        case "notifications/tools/list_changed":
          return refreshTools ??= coalesced(refresh(fetchTools), scope)
        case "notifications/resources/list_changed":
          return refreshResources ??= coalesced(refresh(fetchResources), scope)
        case "notifications/prompts/list_changed":
          return refreshPrompts ??= coalesced(refresh(fetchPrompts), scope)
        default:
          return undefined
      }
    }

    // the modern era's subscriptions/listen: list_changed and resource updates arrive through it
    // made on first use: only a server of the modern era has it
    let listener: ReturnType<typeof Listen.make> | undefined
    const listen = (init: ClientSession.Initialized) =>
      Effect.suspend(() =>
        (listener ??= Listen.make(() => session, scope)).update(Listen.filterOf(init.capabilities, subscriptions))
      )

    const onInitialized = (init: ClientSession.Initialized) =>
      Effect.gen(function*() {
        if (isModernVersion(init.protocolVersion)) {
          yield* Effect.forkIn(refresh(listen(init)), scope)
        } else if (init.restored !== undefined) {
          // the server still holds them for the resumed session: only remembered for a later new session
          for (const uri of init.restored.subscriptions) subscriptions.add(uri)
          loggingLevel = init.restored.loggingLevel
        }
        if (init.generation > 1 && !isModernVersion(init.protocolVersion)) {
          for (const uri of subscriptions) {
            yield* refresh(session.request("resources/subscribe", { uri }))
          }
          if (loggingLevel !== undefined) yield* refresh(session.request("logging/setLevel", { level: loggingLevel }))
        }
        if (options.prefetch === false) return
        const caps = init.capabilities
        yield* Effect.all(
          [
            caps.tools ? refresh(listTools) : Effect.void,
            caps.resources ? refresh(listResources) : Effect.void,
            caps.prompts ? refresh(listPrompts) : Effect.void
          ],
          { concurrency: "unbounded", discard: true }
        )
      })

    session = yield* start({
      onInitialized,
      // keep the live views fresh
      onNotification: (notification) => refreshOn(notification.method)
    })

    const findTool = (name: string) =>
      Effect.gen(function*() {
        const cached = toolIndex.get(name)
        if (cached) return cached
        const init = yield* session.initialized
        if (!init.capabilities.tools) return undefined
        // a fetch of its own: a list already in flight (maybe stalled) must not hold up the call
        return (yield* Effect.orElseSucceed(fetchTools, () => [])).find((tool) => tool.name === name)
      })

    const taskContext: tasks.TaskContext = {
      session: () => session,
      polling,
      cachedTool: (name) => toolIndex.get(name),
      findTool,
      trusted: options.trusted ?? false,
      // the tool as listed after the call: a call of a tool the client did not know has just fetched the list
      validate: (name, result) => checkStructuredContent(validator, toolIndex.get(name), result)
    }

    const toolCalls = yield* ToolCalls.make({
      server: options.server,
      trusted: options.trusted ?? false,
      session: () => session,
      findTool,
      call: Option.isNone(requestHeaders) ?
        (params, callOptions) => tasks.callTool(taskContext, params, callOptions) :
        (params, callOptions) =>
          tasks.callTool(taskContext, params, callOptions).pipe(
            // over HTTP, a HeaderMismatch means the tool's x-mcp-header annotations changed: the server
            // refused the call before running it, so it is sent again once with the headers of a fresh list
            Effect.catchIf(
              (error) => error._tag === "ProtocolError" && error.code === McpError.ErrorCode.HeaderMismatch,
              (error) =>
                Effect.zipRight(
                  Effect.orElseFail(fetchTools, () => error),
                  tasks.callTool(taskContext, params, callOptions)
                )
            )
          ),
      stream: (params, callOptions) => tasks.callToolStream(taskContext, params, callOptions)
    })

    const paramsOf = <A>(method: string, decode: (u: unknown) => Effect.Effect<A, unknown>) =>
    (notifications: Stream.Stream<JsonRpc.Notification>): Stream.Stream<A> =>
      notifications.pipe(
        Stream.filter((n) => n.method === method),
        // (not `Stream.mapEffect`: it brings `Stream.groupByKey`'s machinery into a browser bundle)
        Stream.flatMap((n) => Stream.fromEffectOption(Effect.mapError(decode(n.params ?? {}), () => Option.none())))
      )
    const logMessagesOf = paramsOf("notifications/message", decodeLogMessage)
    const resourceUpdatesOf = paramsOf("notifications/resources/updated", decodeResourceUpdated)

    // the live views end with the session, like every other stream
    // (streams are built when run: a session holds none of their stages until then)
    const readonly = <A>(ref: LazySubscriptionRef.LazySubscriptionRef<A>) =>
      Subscribable.make({ get: ref.get, changes: Stream.suspend(() => Stream.interruptWhen(ref.changes, session.closed)) })

    /** The members built on first read: a client holds none of them until then (most are seldom used). */
    const built: { -readonly [K in LazyMember]?: McpClient.Service[K] } = {}

    const service: McpClient.Service = {
      session,
      initialized: session.initialized,
      get state() {
        return session.state
      },
      ping: builtOnUse(() => legacyOnly("ping").pipe(Effect.zipRight(session.request("ping")), Effect.asVoid)),
      listTools,
      callTool: toolCalls.callTool,
      callToolStream: toolCalls.callToolStream,
      listResources,
      listResourceTemplates: builtOnUse(() =>
        requireCapability("resources", "resources/templates/list").pipe(
          Effect.zipRight(
            paginate(
              (cursor) => decodeListTemplates(session, "resources/templates/list", cursor),
              (r) => r.resourceTemplates
            )
          )
        )
      ),
      readResource: (uri) =>
        requireCapability("resources", "resources/read").pipe(
          Effect.zipRight(decodeReadResource(session, "resources/read", { uri }))
        ),
      subscribe: (uri) =>
        Effect.flatMap(session.initialized, (init) => {
          if (!init.capabilities.resources?.subscribe) {
            return Effect.fail(
              new McpError.UnsupportedCapability({ capability: "resources.subscribe", method: "resources/subscribe" })
            )
          }
          if (isModernVersion(init.protocolVersion)) {
            // the listen request is opened again with the URI added; a refusal takes it out again
            return Effect.sync(() => subscriptions.add(uri)).pipe(
              Effect.zipRight(listen(init)),
              Effect.tapError(() => Effect.sync(() => subscriptions.delete(uri)))
            )
          }
          return Effect.asVoid(session.request("resources/subscribe", { uri })).pipe(
            Effect.tap(() => Effect.sync(() => subscriptions.add(uri)))
          )
        }),
      unsubscribe: (uri) =>
        Effect.sync(() => subscriptions.delete(uri)).pipe(
          Effect.zipRight(session.initialized),
          Effect.flatMap((init) =>
            isModernVersion(init.protocolVersion) ?
              listen(init) :
              Effect.asVoid(session.request("resources/unsubscribe", { uri }))
          )
        ),
      get resourceUpdates() {
        return built.resourceUpdates ??= Stream.suspend(() => resourceUpdatesOf(session.notifications))
      },
      subscribeResourceUpdates: builtOnUse(() => Effect.map(session.subscribeNotifications, resourceUpdatesOf)),
      listPrompts,
      getPrompt: (name, args) =>
        requireCapability("prompts", "prompts/get").pipe(
          Effect.zipRight(
            decodeGetPrompt(session, "prompts/get", args === undefined ? { name } : { name, arguments: args })
          )
        ),
      complete: (params) =>
        requireCapability("completions", "completion/complete").pipe(
          Effect.zipRight(decodeComplete(session, "completion/complete", params as Record<string, unknown>))
        ),
      setLoggingLevel: (level) =>
        legacyOnly("logging/setLevel").pipe(
          Effect.zipRight(requireCapability("logging", "logging/setLevel")),
          Effect.zipRight(session.request("logging/setLevel", { level })),
          Effect.tap(() => Effect.sync(() => loggingLevel = level)),
          Effect.asVoid
        ),
      get logMessages() {
        return built.logMessages ??= Stream.suspend(() => logMessagesOf(session.notifications))
      },
      subscribeLogMessages: builtOnUse(() => Effect.map(session.subscribeNotifications, logMessagesOf)),
      get notifications() {
        return session.notifications
      },
      subscribeNotifications: session.subscribeNotifications,
      get tools() {
        return built.tools ??= readonly(toolsRef)
      },
      get resources() {
        return built.resources ??= readonly(resourcesRef)
      },
      get prompts() {
        return built.prompts ??= readonly(promptsRef)
      },
      getTask: (taskId) => tasks.getTask(taskContext, taskId),
      // the tasks extension of 2026-07-28 has neither tasks/list nor tasks/result
      listTasks: builtOnUse(() => legacyOnly("tasks/list").pipe(Effect.zipRight(tasks.listTasks(taskContext)))),
      cancelTask: (taskId) => tasks.cancelTask(taskContext, taskId),
      getTaskResult: (taskId) => legacyOnly("tasks/result").pipe(Effect.zipRight(tasks.getTaskResult(taskContext, taskId))),
      taskStatus: (taskId) => tasks.taskStatus(taskContext, taskId)
    }
    return service
  })
