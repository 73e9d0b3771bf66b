/**
 * @since 0.1.0
 */
export * as StdioTransport from "./StdioTransport.js"

/**
 * @since 0.1.0
 */
export * as NodeStdioTransport from "./NodeStdioTransport.js"

/**
 * @since 0.2.0
 */
export * as StdioError from "./StdioError.js"
