/**
 * Many MCP servers behind one service: one `McpClient` per enabled server,
 * each in a scope of its own (a failing or slow server never blocks the
 * others; removing one closes only it), their statuses and their tools as
 * live views, and tool calls routed by a provider-safe name.
 *
 * Services in the context where the registry is built reach every client:
 * `Sampling`, `Elicitation`, `Roots`, and core's approval policy and call
 * log, so `callTool` goes through them.
 *
 * Tool names are unique by construction and stable: a tool keeps its own
 * name (characters outside `[a-zA-Z0-9_-]` replaced by `_`) unless another
 * server lists the same name, the name holds `__`, or it is over 64
 * characters; then it is `<prefix>__<tool>`, where the prefix is the
 * server's own (its name made safe, no `__` inside, unique among servers),
 * shortened with `_` and 12 hex digits of SHA-256 when needed. A name stays
 * the tool's while the registry runs (whatever other servers come and go)
 * and never goes to another server's tool; a tool's name therefore depends
 * on the servers connected when it was first seen. `toolNames: "always"`
 * prefixes every tool, so names are the same from run to run.
 *
 * A tool listed twice by its server is offered once (a `DuplicateTool`
 * warning in the server's status). Titles and descriptions offered to a
 * model are neutralised (no control, escape, bidi or invisible characters)
 * and descriptions are cut at `maxDescription` characters. Definitions are
 * pinned on first sight (`ToolPins`): a changed tool is reported and, with
 * `pinning: "quarantine"`, withheld until `approveDefinition`.
 *
 * @since 0.2.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as DurableTasks from "@mcp-effect/core/DurableTasks"
import type * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Subscribable from "effect/Subscribable"
import type { RegistryError, UnknownTool } from "./internal/errors.js"
import * as internal from "./internal/registry.js"
import type * as ServerConfig from "./ServerConfig.js"
import type * as ToolPins from "./ToolPins.js"
import type * as ToolSearch from "./ToolSearch.js"
import type * as TransportFactory from "./TransportFactory.js"

/**
 * A tool of one of the servers, under its registry-wide name.
 *
 * @since 0.2.0
 * @category models
 */
export interface HubTool {
  /** Unique in the registry, matches `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string
  readonly server: string
  /**
   * The tool as its server describes it (its `name` is the server's), with
   * its title and description neutralised and the description capped.
   */
  readonly tool: McpSchema.Tool
}

/**
 * Something about one of a server's tools the registry held back or wants
 * a person to know: `Undecodable` (its definition does not decode: left
 * out), `DuplicateTool` (listed twice, offered once),
 * `DescriptionCut`, `DefinitionChanged` (since it was pinned), `Renamed`
 * (a pinned definition under a new name), `Shadowing` (its description
 * names another server's tool).
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolWarning {
  readonly _tag: "Undecodable" | "DuplicateTool" | "DescriptionCut" | "DefinitionChanged" | "Renamed" | "Shadowing"
  /** The tool's name on its server. */
  readonly tool: string
  readonly message: string
}

/**
 * Why a server is not (or no longer) connected.
 *
 * @since 0.2.0
 * @category models
 */
export type ServerError =
  | McpError.McpClientError
  | ServerConfig.ServerConfigError
  | TransportFactory.TransportUnavailable

/**
 * One server's state: `Disabled`, `Connecting` (first connection),
 * `Connected`, `Reconnecting` (the connection was lost; calls wait),
 * `NeedsAuth` (the server refused the credentials, or a person must sign in),
 * `Failed` (a bad config, no transport, or the transport gave up).
 *
 * @since 0.2.0
 * @category models
 */
export interface ServerStatus {
  readonly _tag: "Disabled" | "Connecting" | "Connected" | "Reconnecting" | "NeedsAuth" | "Failed"
  readonly name: string
  /** Absent for an entry whose config could not be read. */
  readonly transport: ServerConfig.TransportKind | undefined
  readonly trusted: boolean
  readonly toolCount: number
  /**
   * The tools shown are not a fresh listing: the server is reconnecting
   * and they are its last listing, or the listing came from the
   * `ResponseCache` (core, when in the registry's context) past its `ttlMs`
   * or while the server was down. `false` again once a fresh listing arrives.
   *
   * @since 0.4.0
   */
  readonly toolsStale?: boolean | undefined
  /** The HTTP session id, where the transport has one. */
  readonly sessionId: string | undefined
  readonly protocolVersion: string | undefined
  readonly serverInfo: McpSchema.Implementation | undefined
  /**
   * The server's `instructions`, neutralised and cut at 2048 characters
   * (indexed by tool search, summarised in its catalogue).
   *
   * @since 0.4.0
   */
  readonly instructions?: string | undefined
  /**
   * Why the server is `Failed` or `NeedsAuth`, or why its connection ended
   * while it is `Reconnecting` (the last attempt's failure once retries
   * fail); `undefined` once it is `Connected`.
   */
  readonly lastError: ServerError | undefined
  /**
   * About the server's tools as last listed: a tool whose definition does
   * not decode (`Undecodable`: its `inputSchema` root is not an object, say)
   * is left out and the server's other tools are kept; duplicates, cut
   * descriptions, changed pinned definitions, renames, shadowing.
   */
  readonly warnings: ReadonlyArray<ToolWarning>
}

export {
  /**
   * A registry operation that cannot be done.
   *
   * @since 0.2.0
   * @category errors
   */
  RegistryError
} from "./internal/errors.js"

export {
  /**
   * A call by a name the registry does not have: nothing was sent to any
   * server. (A registry name never moves to another tool, and a tool keeps
   * its name while its server stays, so a name the model saw earlier is
   * unknown only when its tool or server is gone.)
   *
   * @since 0.3.0
   * @category errors
   */
  UnknownTool
} from "./internal/errors.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The servers to run, in display order. */
  readonly servers?: ReadonlyArray<ServerConfig.ServerConfig> | undefined
  /** Entries of the same file that could not be read: shown as `Failed`, never started. */
  readonly errors?: ReadonlyArray<ServerConfig.ServerConfigError> | undefined
  /** Default `{ name: "mcp-effect-hub", version: "0.2.0" }`. */
  readonly clientInfo?: McpSchema.Implementation | undefined
  /** Options for every client (a server's `timeout` replaces `requestTimeout`). */
  readonly client?: Omit<McpClient.Options, "clientInfo" | "trusted" | "server"> | undefined
  /** How each server's transport reconnects. Default: the transport's own schedule. */
  readonly reconnect?: McpTransport.ReconnectOptions | undefined
  /** `"onCollision"` (default) or `"always"` (every tool is `<server prefix>__<tool>`, the same from run to run). */
  readonly toolNames?: "onCollision" | "always" | undefined
  /**
   * What a tool whose definition changed since it was pinned does. Default:
   * `"quarantine"` when an `ApprovalPolicy` in the context asks a person
   * (`always-ask`, `trusted-only`), else `"warn"`.
   */
  readonly pinning?: ToolPins.Mode | undefined
  /** Key prefix of the pins in the `KeyValueStore` (in memory without one). Default `ToolPins.defaultPrefix`. */
  readonly pinPrefix?: string | undefined
  /** The longest tool description offered to a model, in characters. Default 4096. */
  readonly maxDescription?: number | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly servers: Subscribable.Subscribable<ReadonlyArray<ServerStatus>>
  /**
   * The tools offered to a model: a tool whose MCP Apps `visibility` leaves
   * the model out (`McpApps.isModelVisible`) is never in it.
   */
  readonly tools: Subscribable.Subscribable<ReadonlyArray<HubTool>>
  /**
   * Calls a tool by its registry name on its server. An unknown name fails
   * with `UnknownTool` (nothing is sent); a server that is gone with a
   * `TransportError`; a
   * quarantined tool with `ToolQuarantined`, unsent. A tool meant for its
   * MCP App only is unknown here, unless the call runs with an app as its
   * `ToolCallLog.currentOrigin` (`AppHost` does that); an app in turn only
   * reaches tools whose visibility includes `"app"`.
   */
  readonly callTool: (
    name: string,
    args?: Record<string, unknown> | undefined,
    options?: McpClient.CallToolOptions
  ) => Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError | UnknownTool | ToolPins.ToolQuarantined>
  /**
   * The tools of `server` its MCP Apps may call (`visibility` includes
   * `"app"`), app-only ones included: never a list to offer a model.
   *
   * @since 0.4.0
   */
  readonly appTools: (server: string) => Effect.Effect<ReadonlyArray<HubTool>>
  /**
   * Waits until every server is settled: connected with its tools listed,
   * or `Disabled`, `Failed` or `NeedsAuth` (a server that never answers is
   * `Failed` after its client's `initializeTimeout`, 30 s by default), and
   * returns the statuses. Fails with `RegistryError` (`Timeout`, naming the
   * servers still connecting) after `timeout` (default 35 s).
   *
   * @since 0.3.0
   */
  readonly awaitReady: (
    options?: { readonly timeout?: Duration.DurationInput | undefined }
  ) => Effect.Effect<ReadonlyArray<ServerStatus>, RegistryError>
  /** What pinning noticed: changed definitions (with a diff), renames, shadowing. */
  readonly pinEvents: Stream.Stream<ToolPins.Event>
  /**
   * Pins the definition a server now lists for `tool` (its name on the
   * server) and lifts its quarantine: a person approved the change.
   */
  readonly approveDefinition: (server: string, tool: string) => Effect.Effect<void, RegistryError>
  /** Adds and starts a server (a name in use fails with `DuplicateServer`). */
  readonly add: (config: ServerConfig.ServerConfig) => Effect.Effect<void, RegistryError>
  /** Stops and removes a server; the others are untouched. */
  readonly remove: (name: string) => Effect.Effect<void, RegistryError>
  readonly enable: (name: string) => Effect.Effect<void, RegistryError>
  readonly disable: (name: string) => Effect.Effect<void, RegistryError>
  /** Closes the server's client and starts it again (after `NeedsAuth` or `Failed`, for example). */
  readonly reconnect: (name: string) => Effect.Effect<void, RegistryError>
  /**
   * The offered tools that best match `query` (see `ToolSearch`): each hit
   * names its server and its registry name. The index follows `tools`, so
   * a tool listed after a `list_changed` is found by the next search, and a
   * disabled server's or a quarantined tool never is. With
   * `ToolSearch.Embeddings` in the registry's context, BM25 and the
   * embeddings are fused.
   *
   * @since 0.4.0
   */
  readonly searchTools: (
    query: string,
    options?: ToolSearch.SearchOptions
  ) => Effect.Effect<ReadonlyArray<ToolSearch.Hit>>
  /** The client of a started server, for everything beyond tools. */
  readonly client: (name: string) => Effect.Effect<McpClient.Service, RegistryError>
  /**
   * Follows a task-augmented call of `server` again by its task id, from
   * this process or another one sharing the hub's storage (after a
   * restart, say): the statuses, then the result, with the call's history
   * record updated, not duplicated (`McpClient.Service.resumeTask`).
   *
   * @since 0.4.0
   */
  readonly resumeTask: (
    server: string,
    taskId: string
  ) => Stream.Stream<McpClient.CallToolEvent, RegistryError | McpError.McpClientError | DurableTasks.TaskNotFound>
  /**
   * Cancels a task of `server`; `tasks/cancel` is sent once however many
   * processes sharing the storage ask (`McpClient.Service.cancelTask`).
   *
   * @since 0.4.0
   */
  readonly cancelTask: (
    server: string,
    taskId: string
  ) => Effect.Effect<McpSchema.Task, RegistryError | McpError.McpClientError>
  /**
   * The task-augmented calls of `server` still waiting for their result,
   * from every process sharing the hub's storage, oldest first.
   *
   * @since 0.4.0
   */
  readonly durableTasks: (
    server: string
  ) => Effect.Effect<ReadonlyArray<DurableTasks.TaskRecord>, RegistryError | McpError.McpClientError>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class ServerRegistry extends Context.Tag("@mcp-effect/hub/ServerRegistry")<ServerRegistry, Service>() {}

/**
 * Starts every enabled server in the background and returns at once.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<Service, never, TransportFactory.TransportFactory | Scope.Scope> = internal.make

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<ServerRegistry, never, TransportFactory.TransportFactory> =>
  Layer.scoped(ServerRegistry, make(options))

/**
 * The key under which `layerStored` keeps its changes.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultStoreKey: typeof internal.defaultStoreKey = internal.defaultStoreKey

/**
 * Like `make`, with the registry's changes (servers added, removed, enabled,
 * disabled) kept in the `KeyValueStore` on top of `servers`: a later start
 * with the same `servers` comes back as it was left. Configs are stored
 * schema-encoded with `${VAR}` references unexpanded, one record per server
 * changed (a `SharedStore` collection named `key`): with the context's
 * `SharedStore` (the file, IndexedDB and Redis stores), registries of several
 * processes change their servers at once without losing any, and each
 * follows the others' changes live.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeStored: (
  options: Options & { readonly key?: string | undefined }
) => Effect.Effect<
  Service,
  RegistryError,
  TransportFactory.TransportFactory | KeyValueStore.KeyValueStore | Scope.Scope
> = internal.makeStored

/**
 * @since 0.2.0
 * @category layers
 */
export const layerStored = (
  options: Options & { readonly key?: string | undefined }
): Layer.Layer<ServerRegistry, RegistryError, TransportFactory.TransportFactory | KeyValueStore.KeyValueStore> =>
  Layer.scoped(ServerRegistry, makeStored(options))
