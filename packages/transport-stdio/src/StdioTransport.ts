/**
 * The stdio transport: runs an MCP server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin and stdout.
 *
 * Each connection is one process. When the process exits, the connection's
 * `incoming` stream fails with a `TransportError` (reason `"Closed"`) naming
 * the exit code or signal and quoting the end of its stderr (its `cause` is
 * a `StdioError.ServerExited`), and the next connection starts a new process
 * after the reconnect schedule's delay. Closing a connection runs the
 * shutdown ladder (close stdin, SIGTERM, SIGKILL, always on the whole
 * process group and, on Linux, on descendants that left it). The server's
 * stderr is drained continuously and published as log lines, in bounded
 * buffers.
 *
 * Process spawning comes from `@effect/platform`'s `CommandExecutor`; the
 * application supplies it (for example `NodeContext.layer` from
 * `@effect/platform-node`). On Node, `NodeStdioTransport` offers the same
 * transport over Node's own child process API.
 *
 * @since 0.1.0
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import { commandBackend, commandContext } from "./internal/commandBackend.js"
import * as environment from "./internal/environment.js"
import * as internal from "./internal/stdioTransport.js"

/**
 * How a connection's process is stopped when the connection closes.
 *
 * @since 0.1.0
 * @category models
 */
export interface ShutdownOptions {
  /**
   * How long to wait for the process to exit after its stdin is closed,
   * before sending SIGTERM to its process group. Default 2000.
   */
  readonly stdinGraceMillis?: number | undefined
  /**
   * How long to wait after SIGTERM before sending SIGKILL to the process
   * group. Default 2000.
   */
  readonly termGraceMillis?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The program to run (looked up on the child's `PATH`). */
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /**
   * Variables set for the server, on top of the inherited whitelist (they
   * win over inherited values).
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  /**
   * Names of further parent variables to pass through, on top of
   * `defaultInheritedEnv`. Nothing else of the parent environment reaches
   * the server.
   */
  readonly inheritEnv?: ReadonlyArray<string> | undefined
  /**
   * Values masked (replaced by `<redacted>`) in the server's stderr before
   * it is published, logged or quoted in an error, on top of the values of
   * `env`: e.g. secrets expanded into `args`. Values shorter than
   * `Redaction.minSecretLength` are not masked.
   *
   * @since 0.3.0
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** The working directory of the server. Default: the parent's. */
  readonly cwd?: string | undefined
  /**
   * The longest line accepted on stdout, in bytes. A longer line is
   * refused while it arrives (memory stays bounded) and ends the connection
   * at once with `TransportError` reason `"Read"`: after it, the server's
   * output can no longer be trusted. Default
   * `JsonRpc.defaultMaxMessageBytes` (16 MiB).
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * How many decoded messages may wait for a reader of
   * `Connection.incoming` (plus those of one stdout chunk). At capacity,
   * stdout is no longer read until the reader catches up, so the server
   * blocks on a full pipe. The session reads through `Connection.push`,
   * which has no queue. Default 256.
   *
   * @since 0.2.0
   */
  readonly incomingCapacity?: number | undefined
  /**
   * How many bytes may wait to be written to the server's stdin. Past it, a
   * send waits until the server has read enough and then writes its message,
   * so a server that stops reading slows its senders down instead of growing
   * a buffer. Default 65536.
   *
   * @since 0.2.0
   */
  readonly stdinHighWaterBytes?: number | undefined
  /** When and how often a crashed server is started again. */
  readonly reconnect?: McpTransport.ReconnectOptions | undefined
  readonly shutdown?: ShutdownOptions | undefined
}

/**
 * The server's stderr, line by line, across restarts. Lines are also logged
 * at debug level. They are never treated as errors. What is kept is bounded
 * whatever the readers do: 1024 unread lines per subscriber (the oldest
 * are dropped), the last 64 lines for replay, each line at most 64 KiB.
 *
 * @since 0.1.0
 * @category models
 */
export interface Logs {
  /**
   * Every stderr line from the moment the stream is run (plus up to the
   * last 64 lines from before, so startup messages are not lost). A slow
   * reader loses the oldest lines rather than slowing the server down. It
   * ends when the transport's scope closes.
   */
  readonly lines: Stream.Stream<string>
  /**
   * A subscription that is in place once this effect completes, for
   * readers that must not miss a line.
   */
  readonly subscribe: Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class StdioLogs extends Context.Tag("@mcp-effect/transport-stdio/StdioLogs")<StdioLogs, Logs>() {}

/**
 * The parent environment variables a server inherits by default: `HOME`,
 * `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` on POSIX; the usual system
 * variables (`APPDATA`, `PATH`, `SYSTEMROOT`, `TEMP`, `USERPROFILE`, ...)
 * on Windows.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultInheritedEnv: ReadonlyArray<string> = environment.defaultInherited

/**
 * The default grace periods of the shutdown ladder, in milliseconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultShutdown: { readonly stdinGraceMillis: number; readonly termGraceMillis: number } = {
  stdinGraceMillis: internal.defaultStdinGraceMillis,
  termGraceMillis: internal.defaultTermGraceMillis
}

/**
 * Builds the transport and its stderr log stream. The log stream lives as
 * long as the given scope; each connection's process lives as long as the
 * connection.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<
  {
    readonly transport: McpTransport.McpTransport["Type"]
    readonly logs: Logs
  },
  never,
  CommandExecutor.CommandExecutor | Scope.Scope
> = (options) => internal.make(options, commandBackend, commandContext)

/**
 * Provides `McpTransport` (one server process per connection) and
 * `StdioLogs` (its stderr).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<McpTransport.McpTransport | StdioLogs, never, CommandExecutor.CommandExecutor> =>
  Layer.scopedContext(Effect.map(make(options), toContext))

/**
 * The services a transport provides, as a `Context`.
 *
 * @since 0.1.0
 * @category utils
 */
export const toContext = (
  { logs, transport }: { readonly transport: McpTransport.McpTransport["Type"]; readonly logs: Logs }
): Context.Context<McpTransport.McpTransport | StdioLogs> =>
  Context.make(McpTransport.McpTransport, transport).pipe(Context.add(StdioLogs, logs))

/**
 * Like `layer`, with the options read from `Config`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<McpTransport.McpTransport | StdioLogs, ConfigError.ConfigError, CommandExecutor.CommandExecutor> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
