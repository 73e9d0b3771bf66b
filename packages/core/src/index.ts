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

/**
 * @since 0.1.0
 */
export * as ClientSession from "./ClientSession.js"

/**
 * @since 0.1.0
 */
export * as Elicitation from "./Elicitation.js"

/**
 * @since 0.1.0
 */
export * as McpClient from "./McpClient.js"

/**
 * @since 0.1.0
 */
export * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 */
export * as Roots from "./Roots.js"

/**
 * @since 0.1.0
 */
export * as Sampling from "./Sampling.js"

/**
 * @since 0.1.0
 */
export * as TaskPolling from "./TaskPolling.js"

/**
 * @since 0.1.0
 */
export * as InMemoryTransport from "./InMemoryTransport.js"

/**
 * @since 0.1.0
 */
export * as TestServer from "./TestServer.js"
