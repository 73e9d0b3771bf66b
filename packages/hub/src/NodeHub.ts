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
import type * as ApprovalPolicy from "@mcp-effect/core/ApprovalPolicy"
import type * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as internal from "./internal/hub.js"
import * as NodeTransportFactory from "./NodeTransportFactory.js"
import * as ServerConfig from "./ServerConfig.js"
import type * as ServerRegistry from "./ServerRegistry.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options<E = never> extends internal.Options<E> {
  /**
   * The servers: a config file's path, the file's JSON value (`{ mcpServers }`
   * or `{ servers }`, as `BrowserHub` takes it), a parsed file, or configs. A
   * bad value fails the Layer with `ConfigFileError`. Default: none (add them
   * at run time).
   */
  readonly config?: string | ServerConfig.Parsed | ReadonlyArray<ServerConfig.ServerConfig> | object | undefined
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
  typeof config === "string"
    ? Effect.provide(ServerConfig.load(config), NodeFileSystem.layer)
    : internal.fromValue(config)

/**
 * Effect's default log format, written to stderr instead of stdout.
 *
 * @since 0.3.0
 * @category logging
 */
export const stderrLogger: Logger.Logger<unknown, void> = Logger.withConsoleError(Logger.stringLogger)

/**
 * Builds a Layer with its logs on stderr, so a CLI's output (or a stdio MCP
 * proxy's JSON-RPC stream) on stdout stays clean: where Effect's default
 * logger is in use, every fiber the Layer starts logs with `stderrLogger`
 * instead; a logger of the app's own, provided around it, is left as it is.
 * `NodeHub.layer` is built this way.
 *
 * @since 0.3.0
 * @category logging
 */
export const logToStderr = <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.locallyWith(self, FiberRef.currentLoggers, (loggers) =>
    HashSet.has(loggers, Logger.defaultLogger) ?
      HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), stderrLogger) :
      loggers)

/**
 * The hub for a Node app. The library's logs go to stderr (`logToStderr`);
 * to route them elsewhere, provide a logger around the hub (for example
 * `Logger.replace(Logger.defaultLogger, yours)`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <E = never>(
  options: Options<E> = {}
): Layer.Layer<Services, E | ServerConfig.ConfigFileError | ServerRegistry.RegistryError> =>
  logToStderr(internal.layer(options, servers(options.config), NodeTransportFactory.layer, KeyValueStore.layerMemory))
