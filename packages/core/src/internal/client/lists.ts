/**
 * The client's lists: tools, resources and prompts fetched through the
 * response cache (every page), shared while a fetch is in flight, kept in
 * live views that a `list_changed` refreshes; the tool index a call reads;
 * the tools a list left out; the capability check every request of a
 * feature makes first.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import type * as ClientSession from "../../ClientSession.js"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as RequestHeaders from "../../RequestHeaders.js"
import { paginate } from "../engine/decode.js"
import type * as LazySubscriptionRef from "../engine/lazySubscriptionRef.js"
import * as CacheHook from "./cacheHook.js"
import { coalesced, LiveView } from "./liveView.js"
import type * as ClientModel from "./model.js"
import * as SingleFlight from "./singleFlight.js"
import * as ToolList from "./toolList.js"

type Capability = "tools" | "resources" | "prompts" | "logging" | "completions"

/**
 * What the lists read of their client.
 *
 * @internal
 */
export interface ListsHost {
  readonly session: ClientSession.Service
  readonly cache: CacheHook.Hook
  /** Set once the client's scope is closed: a caller then runs its own fetch. */
  readonly scopeClosed: boolean
}

/** The tool index before the first list: one empty map for every client (an empty `Map` is ~0.15 KiB). */
const noTools: ReadonlyMap<string, McpSchema.Tool> = new Map()

/**
 * A refresh nobody waits for: a failure is logged, not raised.
 *
 * @internal
 */
export const refresh = (effect: Effect.Effect<unknown, McpError.McpClientError>) =>
  Effect.catchAll(effect, (error) => Effect.logDebug("mcp: could not refresh a list", error.message))

/**
 * What initialization agreed on, once the server is known to have the
 * capability a method needs; a typed error when it has not.
 *
 * @internal
 */
export const requireCapability = (
  host: ListsHost,
  capability: Capability,
  method: string
): Effect.Effect<ClientSession.Initialized, McpError.McpClientError> =>
  Effect.flatMap(host.cache.initialized(host.session), (init) =>
    init.capabilities[capability] === undefined ?
      Effect.fail(new McpError.UnsupportedCapability({ capability, method })) :
      Effect.succeed(init))

/**
 * The lists of one client, as one object whose methods read its fields.
 *
 * @internal
 */
export class Lists {
  readonly tools = new LiveView<McpSchema.Tool>()
  readonly resources = new LiveView<McpSchema.Resource>()
  readonly prompts = new LiveView<McpSchema.Prompt>()
  toolIndex: ReadonlyMap<string, McpSchema.Tool> = noTools
  dropped: ReadonlyArray<ClientModel.DroppedTool> = []
  readonly #singleFlight: SingleFlight.SingleFlight

  readonly #host: ListsHost
  readonly #scope: Scope.Scope
  // over HTTP: tools with invalid x-mcp-header annotations are left out, the others' headers remembered
  readonly #requestHeaders: Option.Option<RequestHeaders.RequestHeaders["Type"]>

  constructor(
    host: ListsHost,
    scope: Scope.Scope,
    requestHeaders: Option.Option<RequestHeaders.RequestHeaders["Type"]>
  ) {
    this.#host = host
    this.#scope = scope
    this.#requestHeaders = requestHeaders
    this.#singleFlight = SingleFlight.make(scope)
  }

  // the fetches refresh the live views; callers share a fetch in flight, but a
  // list_changed always starts a new one (the one in flight may predate the change)
  fetchTools(): Effect.Effect<ReadonlyArray<McpSchema.Tool>, McpError.McpClientError> {
    const host = this.#host
    return this.tools.latest(
      requireCapability(host, "tools", "tools/list").pipe(
        Effect.zipRight(Effect.suspend(() => {
          const dropped: Array<ClientModel.DroppedTool> = []
          return paginate(
            (cursor) => host.cache.page(host.session, "tools/list", cursor),
            (r) => ToolList.sort(r.tools, dropped)
          )
            .pipe(
              Effect.tap(() => {
                this.dropped = dropped
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
        return this.tools.ref.set(tools)
      }
    )
  }

  fetchResources(): Effect.Effect<ReadonlyArray<McpSchema.Resource>, McpError.McpClientError> {
    const host = this.#host
    return this.resources.latest(
      requireCapability(host, "resources", "resources/list").pipe(
        Effect.zipRight(
          paginate((cursor) => host.cache.page(host.session, "resources/list", cursor), (r) => r.resources)
        )
      )
    )
  }

  fetchPrompts(): Effect.Effect<ReadonlyArray<McpSchema.Prompt>, McpError.McpClientError> {
    const host = this.#host
    return this.prompts.latest(
      requireCapability(host, "prompts", "prompts/list").pipe(
        Effect.zipRight(paginate((cursor) => host.cache.page(host.session, "prompts/list", cursor), (r) => r.prompts))
      )
    )
  }

  /** `resources/templates/list`, every page (no live view: no notification says it changed). */
  resourceTemplates(): Effect.Effect<ReadonlyArray<McpSchema.ResourceTemplate>, McpError.McpClientError> {
    const host = this.#host
    return Effect.suspend(() =>
      requireCapability(host, "resources", "resources/templates/list").pipe(
        Effect.zipRight(
          paginate(
            (cursor) => host.cache.page(host.session, "resources/templates/list", cursor),
            (r) => r.resourceTemplates
          )
        )
      )
    )
  }

  /** A fetch that callers share while it is in flight (unless the cache wants each its own). */
  shared<A, E>(key: string, fetch: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.flatMap(
      CacheHook.alone,
      (alone) => alone || this.#host.scopeClosed ? fetch : this.#singleFlight(key, fetch)
    )
  }

  /** The refresh a `list_changed` notification starts (coalesced), or `undefined` for any other method. */
  refreshOn(method: string): Effect.Effect<void> | undefined {
    switch (method) {
      case "notifications/tools/list_changed":
        return this.tools.onChanged ??= coalesced(refresh(this.fetchTools()), this.#scope)
      case "notifications/resources/list_changed":
        return this.resources.onChanged ??= coalesced(refresh(this.fetchResources()), this.#scope)
      case "notifications/prompts/list_changed":
        return this.prompts.onChanged ??= coalesced(refresh(this.fetchPrompts()), this.#scope)
      default:
        return undefined
    }
  }

  findTool(name: string): Effect.Effect<McpSchema.Tool | undefined, McpError.McpClientError> {
    const lists = this
    return Effect.gen(function*() {
      const cached = lists.toolIndex.get(name)
      if (cached) return cached
      const init = yield* lists.#host.session.initialized
      if (!init.capabilities.tools) return undefined
      // a fetch of its own: a list already in flight (maybe stalled) must not hold up the call
      return (yield* Effect.orElseSucceed(lists.fetchTools(), () => [])).find((tool) => tool.name === name)
    })
  }

  // the live views end with the session, like every other stream
  // (streams are built when run: a session holds none of their stages until then)
  view<A>(ref: LazySubscriptionRef.LazySubscriptionRef<A>): Subscribable.Subscribable<A> {
    return Subscribable.make({
      get: ref.get,
      changes: Stream.suspend(() => Stream.interruptWhen(ref.changes, this.#host.session.closed))
    })
  }
}
