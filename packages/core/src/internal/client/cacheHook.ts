/**
 * The shape of the client's response-cache hook, the plain requests a
 * client without a cache uses (`none`), and whether a call runs on its own.
 * The cache itself is `responseCache.ts`. (Loading that on demand was tried:
 * the chunk it shares with the client cost more up front than it saved.)
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as ClientSession from "../../ClientSession.js"
import type * as JsonRpc from "../../JsonRpc.js"
import type * as McpError from "../../McpError.js"
import * as ResponseCache from "../../ResponseCache.js"
import * as Results from "../results.js"

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
  FiberRef.get(ResponseCache.currentMode),
  FiberRef.get(ResponseCache.currentServed),
  (mode, served) => mode !== "use" || Option.isSome(served)
)
