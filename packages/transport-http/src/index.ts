/**
 * @since 0.1.0
 */
export * as HttpAuth from "./HttpAuth.js"

/**
 * @since 0.1.0
 */
export * as HttpTransport from "./HttpTransport.js"
