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
 * @since 0.2.0
 */
export * as ProtocolEra from "./ProtocolEra.js"

/**
 * @since 0.2.0
 */
export * as ProtocolEra2025 from "./ProtocolEra2025.js"

/**
 * @since 0.2.0
 */
export * as ProtocolEra2026 from "./ProtocolEra2026.js"

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

/**
 * @since 0.2.0
 */
export * as ApprovalDecision from "./ApprovalDecision.js"

/**
 * @since 0.2.0
 */
export * as ApprovalPolicy from "./ApprovalPolicy.js"

/**
 * @since 0.2.0
 */
export * as ApprovalRequest from "./ApprovalRequest.js"

/**
 * @since 0.2.0
 */
export * as Approver from "./Approver.js"

/**
 * @since 0.2.0
 */
export * as JsonSchemaValidator from "./JsonSchemaValidator.js"

/**
 * @since 0.2.0
 */
export * as ToolCallLog from "./ToolCallLog.js"

/**
 * State that several processes share, kept per record with atomic
 * operations, and the changes of the others seen live. See `SharedStore`.
 *
 * @since 0.2.0
 */
export * as SharedStore from "./SharedStore.js"

/**
 * Durable task handles: task-augmented calls resumed by id, listed and
 * cancelled once from any process sharing a store, with `DurableTasks.layer`.
 *
 * @since 0.4.0
 */
export * as DurableTasks from "./DurableTasks.js"

/**
 * Durable multi-round-trip requests: an `input_required` request kept as a
 * shared record that any process can list and answer exactly once. See
 * `Continuations`.
 *
 * @since 0.4.0
 */
export * as Continuations from "./Continuations.js"

/**
 * Response caches (SEP-2549): list and read results kept in the
 * `KeyValueStore` per their `ttlMs` / `cacheScope`, served stale while the
 * server is down. See `ResponseCache`.
 *
 * @since 0.4.0
 */
export * as ResponseCache from "./ResponseCache.js"

/**
 * @since 0.2.0
 */
export * as TestTracer from "./TestTracer.js"

/**
 * One way to keep secrets out of what an app shows or exports: spans, logs,
 * error messages, statuses and key names.
 *
 * @since 0.3.0
 */
export * as Redaction from "./Redaction.js"

/**
 * Keeps, per server, what a session needs to continue after the app
 * restarts. See `SessionStore` for the details.
 *
 * @since 0.2.0
 */
export * as SessionStore from "./SessionStore.js"

/**
 * @since 0.2.0
 */
export * as ClientExtensions from "./ClientExtensions.js"

/**
 * @since 0.2.0
 */
export * as Skills from "./Skills.js"

/**
 * The `Mcp-*` request headers of Streamable HTTP (2026-07-28), `x-mcp-header`
 * tool annotations included.
 *
 * @since 0.2.0
 */
export * as RequestHeaders from "./RequestHeaders.js"

/**
 * MCP Apps (`io.modelcontextprotocol/ui`): UI metadata of tools, visibility,
 * reading `ui://` resources and the sandbox a host applies.
 *
 * @since 0.4.0
 */
export * as McpApps from "./McpApps.js"
