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
