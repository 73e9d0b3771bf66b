/**
 * @since 0.1.0
 */
export * as JsonRpc from "./JsonRpc.js"

/**
 * @since 0.1.0
 */
export * as McpError from "./McpError.js"

/**
 * @since 0.1.0
 */
export * as McpTransport from "./McpTransport.js"
