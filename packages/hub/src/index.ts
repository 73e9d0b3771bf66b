/**
 * @since 0.2.0
 */
export * as ServerConfig from "./ServerConfig.js"
