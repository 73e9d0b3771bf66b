/**
 * @since 0.1.0
 */
export * as HttpAuth from "./HttpAuth.js"

/**
 * @since 0.1.0
 */
export * as HttpTransport from "./HttpTransport.js"

/**
 * @since 0.2.0
 */
export * as HttpEra2025 from "./HttpEra2025.js"

/**
 * @since 0.2.0
 */
export * as HttpEra2026 from "./HttpEra2026.js"
