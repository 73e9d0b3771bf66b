/**
 * One Layer for a browser app: HTTP and WebSocket servers from a config
 * (stdio entries, and WebSocket entries with headers, show as `Failed` with
 * `TransportUnavailable`), the approval policy, the call history and the
 * registry's changes in IndexedDB by default.
 *
 * ```ts
 * const Hub = BrowserHub.layer({
 *   config: { mcpServers: { docs: { url: "https://example.com/mcp" } } },
 *   approval: { mode: "always-ask" },
 *   approver: (request) => showDialog(request)
 * })
 * ```
 *
 * Nothing is touched at import time; storage is opened when the Layer is built.
 *
 * @since 0.2.0
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as ApprovalPolicy from "@mcp-effect/core/ApprovalPolicy"
import type * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import type * as Layer from "effect/Layer"
import * as BrowserTransportFactory from "./BrowserTransportFactory.js"
import * as IndexedDbKeyValueStore from "./IndexedDbKeyValueStore.js"
import * as internal from "./internal/hub.js"
import type * as ServerConfig from "./ServerConfig.js"
import type * as ServerRegistry from "./ServerRegistry.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options<E = never> extends internal.Options<E> {
  /**
   * The servers: a config file's JSON value (`{ mcpServers }` or
   * `{ servers }`), a parsed file, or configs. Default: none.
   */
  readonly config?: unknown
}

/**
 * @since 0.2.0
 * @category models
 */
export type Services =
  | ServerRegistry.ServerRegistry
  | ApprovalPolicy.ApprovalPolicy
  | ToolCallLog.ToolCallLog
  | KeyValueStore.KeyValueStore

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = <E = never>(
  options: Options<E> = {}
): Layer.Layer<
  Services,
  E | PlatformError.PlatformError | ServerConfig.ConfigFileError | ServerRegistry.RegistryError
> =>
  internal.layer<E | PlatformError.PlatformError, ServerConfig.ConfigFileError>(
    options,
    internal.fromValue(options.config),
    BrowserTransportFactory.layer,
    IndexedDbKeyValueStore.layer()
  )
