/**
 * @since 0.2.0
 */
export * as ServerConfig from "./ServerConfig.js"

/**
 * @since 0.2.0
 */
export * as ServerRegistry from "./ServerRegistry.js"

/**
 * Seals the secrets of a server config before it is stored, and opens them
 * when it is read back.
 *
 * @since 0.3.0
 */
export * as ConfigSealer from "./ConfigSealer.js"

/**
 * @since 0.2.0
 */
export * as TransportFactory from "./TransportFactory.js"

/**
 * MCP tools and tool results in the shapes LLM provider APIs take: OpenAI
 * (chat completions and Responses), Anthropic Messages and Gemini.
 *
 * @since 0.2.0
 */
export * as ToolFormat from "./ToolFormat.js"

/**
 * MCP Apps in the hub: a server's UI loaded and pinned, and its tool calls
 * routed through approval, quarantine and the call history.
 *
 * @since 0.4.0
 */
export * as AppHost from "./AppHost.js"

/**
 * Pinned tool definitions: trust on first use for every tool of a
 * `ServerRegistry`, with quarantine of changed tools.
 *
 * @since 0.2.0
 */
export * as ToolPins from "./ToolPins.js"

/**
 * Tool search across every server of a `ServerRegistry` (BM25F, an optional
 * embedding ranker) and the deferred exposure of tools to a model.
 *
 * @since 0.4.0
 */
export * as ToolSearch from "./ToolSearch.js"

// `McpToolkit` is not in this index: it needs `@effect/ai` (an optional peer), so it is imported
// by path, `import * as McpToolkit from "@mcp-effect/hub/McpToolkit"`, and an app without it
// never loads it.
