/**
 * The Node entry point: `import { NodeHub } from "@mcp-effect/hub/node"`.
 *
 * @since 0.2.0
 */

/**
 * @since 0.2.0
 */
export * as NodeFileKeyValueStore from "./NodeFileKeyValueStore.js"

/**
 * @since 0.2.0
 */
export * as NodeHub from "./NodeHub.js"

/**
 * @since 0.2.0
 */
export * as NodeTransportFactory from "./NodeTransportFactory.js"
