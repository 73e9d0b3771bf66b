/**
 * One Layer for a Node app: servers from an `mcpServers` file (or given),
 * stdio, HTTP and WebSocket transports, the approval policy, the call
 * history and the registry's changes on one `KeyValueStore`.
 *
 * ```ts
 * const Hub = NodeHub.layer({
 *   config: "mcp.json",
 *   storage: NodeFileKeyValueStore.layer(".mcp-effect"),
 *   approval: { mode: "trusted-only" },
 *   approver: (request) => askInTheTerminal(request)
 * })
 * ```
 *
 * A server whose entry is bad shows as `Failed` (naming the key); the file
 * being unreadable fails the Layer with `ConfigFileError`.
 *
 * @since 0.2.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as internal from "./internal/hub.js"
import * as NodeTransportFactory from "./NodeTransportFactory.js"
import * as ServerConfig from "./ServerConfig.js"
import type * as ServerRegistry from "./ServerRegistry.js"
import type { ApprovalPolicy, ToolCallLog } from "@mcp-effect/core"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options<E = never> extends internal.Options<E> {
  /**
   * The servers: a config file's path, a parsed file, or configs. Default:
   * none (add them at run time).
   */
  readonly config?: string | ServerConfig.Parsed | ReadonlyArray<ServerConfig.ServerConfig> | undefined
}

/**
 * What a hub provides: the registry, the approval policy, the call log, and
 * the storage they use.
 *
 * @since 0.2.0
 * @category models
 */
export type Services =
  | ServerRegistry.ServerRegistry
  | ApprovalPolicy.ApprovalPolicy
  | ToolCallLog.ToolCallLog
  | KeyValueStore.KeyValueStore

/**
 * The servers an option names, read when the Layer is built.
 *
 * @since 0.2.0
 * @category utils
 */
export const servers = (
  config: Options["config"]
): Effect.Effect<ServerConfig.Parsed, ServerConfig.ConfigFileError> =>
  config === undefined
    ? Effect.succeed({ servers: [], errors: [] })
    : typeof config === "string"
    ? Effect.provide(ServerConfig.load(config), NodeFileSystem.layer)
    : Effect.succeed("servers" in config ? config : { servers: config, errors: [] })

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = <E = never>(
  options: Options<E> = {}
): Layer.Layer<Services, E | ServerConfig.ConfigFileError | ServerRegistry.RegistryError> =>
  internal.layer(options, servers(options.config), NodeTransportFactory.layer, KeyValueStore.layerMemory)
