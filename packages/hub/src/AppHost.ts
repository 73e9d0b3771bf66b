/**
 * The hub's side of MCP Apps: what a host needs to render a server's UI and
 * to let that UI act, with the registry's protections applied to it.
 *
 * - `load` reads a tool's `ui://` resource through the server's client and
 *   pins it like a tool definition (trust on first use, in the context's
 *   `KeyValueStore`): the HTML, the declared CSP, permissions and domain.
 *   When the server later serves something else under that URI, the app is
 *   quarantined (`pinning: "quarantine"`): `load` fails with `UiChanged` and
 *   the app's tool calls are refused, until `approveUi` pins the new UI.
 *   With `"warn"` the change is only reported on `events`.
 * - `callTool` is how the UI calls its server's tools: by the tool's name on
 *   that server (never another server's), only tools whose visibility
 *   includes `"app"`, and through the registry's `callTool`, so the
 *   approval policy, quarantine of changed definitions and the call history
 *   apply; the history records the call with the app as its `origin`. A
 *   denied or refused call never reaches the server. An "approve always"
 *   covers the app that was asked about only: never the model's calls of
 *   the tool, nor another app's (and the model's never covers the app).
 *
 * @since 0.4.0
 */
import type * as McpApps from "@mcp-effect/core/McpApps"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as internal from "./internal/apps.js"
import type { UiChanged } from "./internal/errors.js"
import type * as ServerRegistry from "./ServerRegistry.js"
import type * as ToolPins from "./ToolPins.js"

/**
 * An app: a server and the `ui://` resource its UI is served at.
 *
 * @since 0.4.0
 * @category models
 */
export interface App {
  readonly server: string
  readonly uri: string
}

export {
  /**
   * The UI of an app is not what was approved: the server now serves another
   * document, policy or permissions under its URI. Nothing of it is rendered
   * and none of its calls are sent until `approveUi` with this `digest`.
   *
   * @since 0.4.0
   * @category errors
   */
  UiChanged
} from "./internal/errors.js"

/**
 * What pinning noticed about an app's UI.
 *
 * @since 0.4.0
 * @category models
 */
export interface Event {
  readonly _tag: "UiChanged"
  readonly server: string
  readonly uri: string
  /** Whether the app is refused until `approveUi`. */
  readonly quarantined: boolean
}

/**
 * A UI as loaded: the resource and the digest it is pinned under.
 *
 * @since 0.4.0
 * @category models
 */
export interface Loaded {
  readonly app: App
  readonly resource: McpApps.UiResource
  readonly digest: string
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** Default: `"quarantine"` when an `ApprovalPolicy` in the context asks a person, else `"warn"` (as the registry). */
  readonly pinning?: ToolPins.Mode | undefined
  /** Key prefix of the pins in the `KeyValueStore` (in memory without one). Default `ToolPins.defaultPrefix`. */
  readonly pinPrefix?: string | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Service {
  /** Reads and checks an app's UI against its pin (the first one seen is pinned). */
  readonly load: (
    app: App
  ) => Effect.Effect<Loaded, UiChanged | McpApps.McpAppsError | McpError.McpClientError | ServerRegistry.RegistryError>
  /** Pins the UI with this digest (from `UiChanged`) and lifts the app's quarantine: a person approved it. */
  readonly approveUi: (app: App, digest: string) => Effect.Effect<void>
  /** A tool call the app's UI makes, by the tool's name on the app's server. */
  readonly callTool: (
    app: App,
    tool: string,
    args?: Record<string, unknown> | undefined
  ) => Effect.Effect<
    McpSchema.CallToolResult,
    McpError.McpClientError | ServerRegistry.UnknownTool | ToolPins.ToolQuarantined | UiChanged
  >
  /** The tools of the app's server that its UI may call (app-only ones included). */
  readonly tools: (app: App) => Effect.Effect<ReadonlyArray<ServerRegistry.HubTool>>
  /** Changed UIs, as they are loaded. */
  readonly events: Stream.Stream<Event>
}

/**
 * @since 0.4.0
 * @category tags
 */
export class AppHost extends Context.Tag("@mcp-effect/hub/AppHost")<AppHost, Service>() {}

/**
 * Needs the registry; reads `KeyValueStore` and `ApprovalPolicy` from the
 * context when they are there.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make: (
  options?: Options
) => Effect.Effect<Service, never, ServerRegistry.ServerRegistry | Scope.Scope> = internal.make

/**
 * @since 0.4.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<AppHost, never, ServerRegistry.ServerRegistry> =>
  Layer.scoped(AppHost, make(options))
