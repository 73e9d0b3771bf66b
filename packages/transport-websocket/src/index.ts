/**
 * @since 0.2.0
 */
export * as WebSocketTransport from "./WebSocketTransport.js"

/**
 * @since 0.2.0
 */
export * as WebSocketError from "./WebSocketError.js"
