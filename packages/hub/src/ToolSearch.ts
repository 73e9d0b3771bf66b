/**
 * Tool search across every server of a `ServerRegistry`, and the deferred
 * way of offering tools to a model that rests on it.
 *
 * The index covers each offered tool's registry and own names (identifiers
 * split: `getFileContents` is `get file contents`), title, description,
 * parameter names and descriptions, its server's name and the server's
 * `instructions`, each field weighted (BM25F), with a small table of
 * synonyms for the words people use when asking for a tool. It is built
 * from the registry's `tools` view, so it follows `list_changed`, servers
 * added, removed, enabled or disabled, and quarantine: a tool the registry
 * does not offer (disabled server, quarantined definition, MCP Apps
 * `_meta.ui.visibility` without `"model"`) is never found. An app with an
 * embedding model provides {@link Embeddings}; the registry then fuses its
 * ranking with BM25's (no model ships with the library).
 *
 * Exposure to a model ({@link conversation}):
 * - `"all"`: every tool, as `ServerRegistry.tools` has them;
 * - `"deferred"` (default): the `search_tools` meta-tool, whose description
 *   is a compact catalogue (each server's name, a one-line summary, a few
 *   tool names), the `pinned` tools, and the tools earlier searches of the
 *   conversation activated. Activated tools are kept per conversation in
 *   the `KeyValueStore` (through its `SharedStore`), so a restarted process,
 *   or another one, continues with the same tools.
 *
 * Providers with deferred loading of their own take every tool with
 * `ToolFormat.anthropicDeferredTools` / `ToolFormat.openAiResponsesDeferredTools`;
 * either way calls come back through `ServerRegistry.callTool` (and so through
 * the approval policy and the call log).
 *
 * @since 0.4.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as McpClient from "@mcp-effect/core/McpClient"
import type * as McpError from "@mcp-effect/core/McpError"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as Effect from "effect/Effect"
import * as internalConversation from "./internal/search/conversation.js"
import * as Index_ from "./internal/search/index.js"
import type * as McpToolkit from "./McpToolkit.js"
import type * as ServerRegistry from "./ServerRegistry.js"
import type * as ToolPins from "./ToolPins.js"

/**
 * A tool found: its registry name (what a model calls), its server, the
 * tool, and its score (higher is better; comparable within one search).
 *
 * @since 0.4.0
 * @category models
 */
export interface Hit extends ServerRegistry.HubTool {
  readonly score: number
}

/**
 * @since 0.4.0
 * @category models
 */
export interface SearchOptions {
  /** The most tools to return. Default 5, at most 100. */
  readonly limit?: number | undefined
  /** Only tools of these servers. */
  readonly servers?: ReadonlyArray<string> | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface IndexOptions {
  /**
   * Each server's `instructions`, indexed once as a document of the server:
   * a tool gets a quarter of its server's score for a request.
   */
  readonly instructions?: ReadonlyMap<string, string> | undefined
}

/**
 * A BM25F index over a list of tools. Pure and synchronous: built in one
 * pass, searched without I/O.
 *
 * @since 0.4.0
 * @category models
 */
export interface Index {
  /** The tools indexed (those a model may see). */
  readonly size: number
  readonly tools: ReadonlyArray<ServerRegistry.HubTool>
  readonly search: (query: string, options?: SearchOptions) => ReadonlyArray<Hit>
}

/**
 * An index over `tools` (the registry keeps one over its `tools` view; this
 * is for apps and benchmarks with tool lists of their own).
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeIndex: (tools: ReadonlyArray<ServerRegistry.HubTool>, options?: IndexOptions) => Index = Index_.make

export {
  /**
   * An embedding model the app provides: one vector per text, in order. With
   * it in the registry's context, `searchTools` ranks by BM25 and by cosine
   * similarity and fuses both rankings (reciprocal rank fusion); tool vectors
   * are computed once per distinct tool text. A failing `embed` falls back to
   * BM25 alone (logged at warning level).
   *
   * @since 0.4.0
   * @category tags
   */
  Embeddings
} from "./internal/search/embeddingsTag.js"

/**
 * The name of the hub's meta-tool.
 *
 * @since 0.4.0
 * @category constants
 */
export const searchToolName = "search_tools"

/**
 * The collection prefix under which conversations keep their activated tools.
 *
 * @since 0.4.0
 * @category constants
 */
export const defaultPrefix = "mcp-effect/hub/tool-search"

/**
 * @since 0.4.0
 * @category models
 */
export interface ConversationOptions {
  /** `"deferred"` (default) or `"all"`. */
  readonly mode?: "all" | "deferred" | undefined
  /** Registry names always offered, whatever the searches found. */
  readonly pinned?: ReadonlyArray<string> | undefined
  /** The most tools one `search_tools` call activates. Default 5. */
  readonly limit?: number | undefined
  /** Collection prefix in the store. Default {@link defaultPrefix}. */
  readonly prefix?: string | undefined
}

/**
 * One conversation's view of the registry's tools.
 *
 * @since 0.4.0
 * @category models
 */
export interface Conversation {
  readonly id: string
  readonly mode: "all" | "deferred"
  /**
   * The tools to give the model for its next turn, ready for `ToolFormat`
   * or `McpToolkit`: with `"all"`, every tool; with `"deferred"`, the
   * `search_tools` meta-tool (server undefined), then the pinned and the
   * activated tools the registry still offers.
   */
  readonly tools: Effect.Effect<ReadonlyArray<McpToolkit.SourceTool>, ServerRegistry.RegistryError>
  /** The meta-tool, its description holding the catalogue of servers. */
  readonly searchTool: Effect.Effect<McpSchema.Tool>
  /** The registry names activated so far, in name order. */
  readonly activated: Effect.Effect<ReadonlyArray<string>, ServerRegistry.RegistryError>
  /** Activates tools by registry name (unknown names fail with `UnknownTool`, nothing is stored). */
  readonly activate: (
    names: ReadonlyArray<string>
  ) => Effect.Effect<void, ServerRegistry.RegistryError | ServerRegistry.UnknownTool>
  /** Forgets every activated tool of the conversation. */
  readonly reset: Effect.Effect<void, ServerRegistry.RegistryError>
  /** Searches the registry and activates what was found. */
  readonly search: (
    query: string,
    options?: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Hit>, ServerRegistry.RegistryError>
  /**
   * A call the model made: `search_tools` is answered here (its result
   * lists the tools found, now activated; bad arguments are an `isError`
   * result); any other name goes to `ServerRegistry.callTool`, so through
   * the approval policy and the call log like every call.
   */
  readonly callTool: (
    name: string,
    args?: Record<string, unknown> | undefined,
    options?: McpClient.CallToolOptions
  ) => Effect.Effect<
    McpSchema.CallToolResult,
    McpError.McpClientError | ServerRegistry.UnknownTool | ToolPins.ToolQuarantined | ServerRegistry.RegistryError
  >
}

/**
 * A conversation over the context's registry, its activated tools kept in
 * the context's `KeyValueStore` (the `SharedStore` of the file, IndexedDB
 * or Redis store when the store has one, so several processes share them).
 * Conversation ids are record names, not secrets.
 *
 * @since 0.4.0
 * @category constructors
 */
export const conversation: (
  id: string,
  options?: ConversationOptions
) => Effect.Effect<Conversation, never, ServerRegistry.ServerRegistry | KeyValueStore.KeyValueStore> =
  internalConversation.make

/**
 * The catalogue a deferred conversation offers: one line per server with
 * tools (its name, a summary from its instructions or `serverInfo`, the
 * number of tools and the first few tool names).
 *
 * @since 0.4.0
 * @category constructors
 */
export const catalogue: (
  servers: ReadonlyArray<ServerRegistry.ServerStatus>,
  tools: ReadonlyArray<ServerRegistry.HubTool>
) => string = internalConversation.catalogue

/**
 * The `search_tools` meta-tool with a catalogue in its description (what a
 * deferred conversation offers, for apps that assemble their own tool list).
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeSearchTool: (catalogue: string) => McpSchema.Tool = internalConversation.searchToolOf

/**
 * An approximation of the tokens a JSON payload costs a model: one token
 * per four characters of its JSON text (the rule of thumb providers give
 * for English and JSON; real tokenizers land within about 20 %).
 *
 * @since 0.4.0
 * @category utils
 */
export const estimateTokens = (payload: unknown): number => Math.ceil((JSON.stringify(payload) ?? "").length / 4)
