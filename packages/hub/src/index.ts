/**
 * @since 0.2.0
 */
export * as ServerConfig from "./ServerConfig.js"

/**
 * @since 0.2.0
 */
export * as ServerRegistry from "./ServerRegistry.js"

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
 * MCP tools as an `@effect/ai` (0.37) `Toolkit` whose handlers call through
 * a source's `callTool` (`ServerRegistry`, or one client with `fromClient`).
 *
 * @since 0.2.0
 */
export * as McpToolkit from "./McpToolkit.js"

/**
 * Pinned tool definitions: trust on first use for every tool of a
 * `ServerRegistry`, with quarantine of changed tools.
 *
 * @since 0.2.0
 */
export * as ToolPins from "./ToolPins.js"
