/**
 * The stdio transport on Node's own `child_process` API: the same options,
 * framing, environment whitelist, stderr log stream, shutdown ladder and
 * restarts as `StdioTransport`, with no `CommandExecutor` to supply. Writes
 * go straight to the pipe and stdout chunks straight to the framer, with no
 * platform streams between; use it on Node.
 *
 * @since 0.1.0
 */
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { nodeBackend } from "./internal/nodeBackend.js"
import * as internal from "./internal/stdioTransport.js"
import * as StdioTransport from "./StdioTransport.js"

/**
 * Builds the transport and its stderr log stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: StdioTransport.Options): Effect.Effect<
  {
    readonly transport: McpTransport.McpTransport["Type"]
    readonly logs: StdioTransport.Logs
  },
  never,
  Scope.Scope
> => internal.make(options, nodeBackend, noServices)

/** Node's backend needs no service: the transport keeps none of the layer's context. */
const noServices = () => Context.empty()

/**
 * Provides `McpTransport` (one server process per connection) and
 * `StdioTransport.StdioLogs` (its stderr).
 *
 * @example
 * ```ts
 * import { McpClient } from "@mcp-effect/core"
 * import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
 * import { Layer } from "effect"
 *
 * // the server process; only the whitelisted environment and `env` reach it
 * const Transport = NodeStdioTransport.layer({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
 *   env: { LOG_LEVEL: "info" }
 * })
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(Transport)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: StdioTransport.Options
): Layer.Layer<McpTransport.McpTransport | StdioTransport.StdioLogs> =>
  Layer.scopedContext(Effect.map(make(options), StdioTransport.toContext))

/**
 * Like `layer`, with the options read from `Config`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config.Wrap<StdioTransport.Options>
): Layer.Layer<McpTransport.McpTransport | StdioTransport.StdioLogs, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
