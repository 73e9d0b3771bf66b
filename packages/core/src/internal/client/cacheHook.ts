/**
 * What a client holds of `ResponseCache`: the tag (by its key), the shape
 * of the hook the service hands a client, the plain requests a client
 * without a cache uses (`none`), the fiber refs of `withMode` / `cached`
 * and whether a call runs on its own. The cache itself is `responseCache.ts`,
 * reached only through the service `ResponseCache.layer` builds, so a
 * client without that Layer bundles none of it.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import type * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type * as ClientSession from "../../ClientSession.js"
import type * as JsonRpc from "../../JsonRpc.js"
import type * as McpError from "../../McpError.js"
import type * as ResponseCache from "../../ResponseCache.js"
import * as Results from "./results.js"

/**
 * The public module's tag, by its key (the public module is imported as a type only).
 *
 * @internal
 */
export const tag = Context.GenericTag<ResponseCache.ResponseCache, ResponseCache.Service>(
  "@mcp-effect/core/ResponseCache"
)

/** @internal */
export const currentMode: FiberRef.FiberRef<ResponseCache.Mode> = FiberRef.unsafeMake<ResponseCache.Mode>("use")

/** @internal */
export const currentServed: FiberRef.FiberRef<Option.Option<Ref.Ref<ResponseCache.Served>>> = FiberRef.unsafeMake<
  Option.Option<Ref.Ref<ResponseCache.Served>>
>(Option.none())

/**
 * The methods whose results are cached.
 *
 * @internal
 */
export type Cacheable = "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "resources/read"

export const requests: { readonly [M in Cacheable]: Results.Request<M> } = {
  "tools/list": Results.request("tools/list"),
  "prompts/list": Results.request("prompts/list"),
  "resources/list": Results.request("resources/list"),
  "resources/templates/list": Results.request("resources/templates/list"),
  "resources/read": Results.request("resources/read")
}

/**
 * @internal
 */
export type Page = <M extends Cacheable>(
  session: ClientSession.Service,
  method: M,
  params?: Record<string, unknown>
) => Effect.Effect<Results.Result<M>, McpError.McpClientError>

/**
 * @internal
 */
export interface Hook {
  readonly page: Page
  /** What the session agreed, at once from the last connection while the server is down. */
  readonly initialized: (session: ClientSession.Service) => Effect.Effect<
    ClientSession.Initialized,
    McpError.McpClientError
  >
  /** The entries a notification makes wrong, deleted. */
  readonly invalidate: (notification: JsonRpc.Notification) => Effect.Effect<void> | undefined
  /** Fails at once with `ServerUnavailable` while the server is down. */
  readonly guard: <A>(
    method: string,
    effect: Effect.Effect<A, McpError.McpClientError>
  ) => Effect.Effect<A, McpError.McpClientError>
  /** Follows the session's states (when it was last up); runs in the client's scope. */
  readonly watch: (session: ClientSession.Service) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * The plain requests: no cache.
 *
 * @internal
 */
export const none: Hook = {
  page: (session, method, params) => requests[method](session, params),
  initialized: (session) => session.initialized,
  invalidate: () => undefined,
  guard: (_, effect) => effect,
  watch: () => Effect.void
}

/**
 * Whether a list runs on its own rather than joining a fetch in flight: a
 * caller that asked for a mode, or for what was served, gets its own.
 *
 * @internal
 */
export const alone: Effect.Effect<boolean> = Effect.zipWith(
  FiberRef.get(currentMode),
  FiberRef.get(currentServed),
  (mode, served) => mode !== "use" || Option.isSome(served)
)
