/**
 * @since 0.1.0
 */
export * as StdioTransport from "./StdioTransport.js"

/**
 * @since 0.1.0
 */
export * as NodeStdioTransport from "./NodeStdioTransport.js"
