/**
 * @since 0.1.0
 */
export * as TokenStore from "./TokenStore.js"
