/**
 * @since 0.1.0
 */
export * as StdioTransport from "./StdioTransport.js"
