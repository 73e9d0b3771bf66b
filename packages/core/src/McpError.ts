/**
 * The closed family of errors an MCP client can fail with.
 *
 * Tool execution failures are not errors: they arrive as a `CallToolResult`
 * with `isError: true`. Everything here is about reaching the server, the
 * protocol, or the client's own policies.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@mcp-effect/core/McpError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * Returns `true` for any error of the mcp-effect family.
 *
 * @since 0.1.0
 * @category guards
 */
export const isMcpClientError = (u: unknown): u is McpClientError => Predicate.hasProperty(u, TypeId)

/**
 * A connection could not be made, broke, or answered with an HTTP status the
 * transport cannot use.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Schema.TaggedError<TransportError>("@mcp-effect/core/TransportError")(
  "TransportError",
  {
    reason: Schema.Literal("Connect", "Closed", "Write", "Read", "Http", "Exhausted"),
    message: Schema.String,
    phase: Schema.optional(Schema.String),
    status: Schema.optional(Schema.Number),
    cause: Schema.optional(Schema.Defect)
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The server answered a request with a JSON-RPC error.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProtocolError extends Schema.TaggedError<ProtocolError>("@mcp-effect/core/ProtocolError")(
  "ProtocolError",
  {
    code: Schema.Number,
    message: Schema.String,
    data: Schema.optional(Schema.Unknown),
    method: Schema.optional(Schema.String)
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * A request got no answer within its idle budget (reset by progress) or its
 * hard maximum.
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>("@mcp-effect/core/RequestTimeout")(
  "RequestTimeout",
  {
    method: Schema.String,
    kind: Schema.Literal("idle", "total"),
    millis: Schema.Number
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId

  override get message(): string {
    return `${this.method} timed out after ${this.millis} ms (${this.kind} timeout)`
  }
}

/**
 * The work was cancelled by the other side (for example a task the server
 * moved to `cancelled`). Cancelling from this side is a fiber interrupt, not
 * this error.
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestCancelled extends Schema.TaggedError<RequestCancelled>("@mcp-effect/core/RequestCancelled")(
  "RequestCancelled",
  {
    method: Schema.String,
    reason: Schema.optional(Schema.String)
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The server no longer knows the session (HTTP 404 on a request that carried
 * `MCP-Session-Id`).
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionExpired extends Schema.TaggedError<SessionExpired>("@mcp-effect/core/SessionExpired")(
  "SessionExpired",
  {
    message: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The connection died after a non-idempotent request was sent: it may or may
 * not have run on the server, and it is never sent again behind the caller's
 * back.
 *
 * @since 0.1.0
 * @category errors
 */
export class OutcomeUnknown extends Schema.TaggedError<OutcomeUnknown>("@mcp-effect/core/OutcomeUnknown")(
  "OutcomeUnknown",
  {
    method: Schema.String,
    toolName: Schema.optional(Schema.String),
    message: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The server refused the credentials (HTTP 401), or they could not be
 * obtained; the user may have to authorize again.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>("@mcp-effect/core/Unauthorized")(
  "Unauthorized",
  {
    message: Schema.String,
    reauthorize: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The server wants a token with more scopes (HTTP 403 `insufficient_scope`).
 *
 * @since 0.1.0
 * @category errors
 */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>("@mcp-effect/core/InsufficientScope")(
  "InsufficientScope",
  {
    message: Schema.String,
    scope: Schema.optional(Schema.String)
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The approval policy (or the person it asked) refused a tool call.
 *
 * @since 0.1.0
 * @category errors
 */
export class ApprovalDenied extends Schema.TaggedError<ApprovalDenied>("@mcp-effect/core/ApprovalDenied")(
  "ApprovalDenied",
  {
    toolName: Schema.String,
    reason: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId

  override get message(): string {
    return `tool call ${this.toolName} was not approved: ${this.reason}`
  }
}

/**
 * The request needs a capability the other side did not declare.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedCapability extends Schema.TaggedError<UnsupportedCapability>(
  "@mcp-effect/core/UnsupportedCapability"
)(
  "UnsupportedCapability",
  {
    capability: Schema.String,
    method: Schema.String,
    /**
     * Set when the method does not exist in the protocol revision the
     * server speaks (e.g. `tasks/list` in 2026-07-28): that revision.
     *
     * @since 0.2.0
     */
    protocolVersion: Schema.optional(Schema.String)
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId

  override get message(): string {
    return this.protocolVersion !== undefined ?
      `${this.method} does not exist in protocol ${this.protocolVersion}, which the server speaks` :
      `${this.method} needs the server capability "${this.capability}", which the server did not declare`
  }
}

/**
 * Bytes that are not a valid MCP message: bad JSON, a bad JSON-RPC envelope,
 * a message over the size limit, a result that does not match its
 * method's schema, or (`OutputSchema`) a tool result whose `structuredContent`
 * is missing or does not match the tool's `outputSchema`.
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends Schema.TaggedError<DecodeError>("@mcp-effect/core/DecodeError")(
  "DecodeError",
  {
    reason: Schema.Literal("Json", "Envelope", "TooLarge", "Schema", "OutputSchema"),
    message: Schema.String,
    method: Schema.optional(Schema.String)
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * The server is down (its connection is being made again, or was given up)
 * and the call was refused at once instead of waiting for the reconnect. Only
 * a client with a `ResponseCache` in its context fails fast this way; its
 * lists and reads are served from the cache meanwhile, flagged offline.
 *
 * @since 0.4.0
 * @category errors
 */
export class ServerUnavailable extends Schema.TaggedError<ServerUnavailable>("@mcp-effect/core/ServerUnavailable")(
  "ServerUnavailable",
  {
    server: Schema.String,
    method: Schema.String,
    /** When the server was last seen up, or the client started without reaching it (epoch milliseconds). */
    since: Schema.Number,
    reason: Schema.String
  }
) {
  /**
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId

  /**
   * @since 0.3.0
   */
  override get message(): string {
    return `server "${this.server}" is unavailable since ${new Date(this.since).toISOString()} ` +
      `(${this.reason}); ${this.method} was not sent`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type McpClientError =
  | TransportError
  | ProtocolError
  | RequestTimeout
  | RequestCancelled
  | SessionExpired
  | OutcomeUnknown
  | Unauthorized
  | InsufficientScope
  | ApprovalDenied
  | UnsupportedCapability
  | DecodeError
  | ServerUnavailable

/**
 * Standard JSON-RPC and MCP error codes.
 *
 * @since 0.1.0
 * @category constants
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Resource not found up to 2025-11-25; 2026-07-28 servers answer `InvalidParams` instead. */
  ResourceNotFound: -32002,
  /** 2026-07-28: HTTP headers and body disagree, or a required header is missing. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  UrlElicitationRequired: -32042
} as const

/**
 * Whether an error says the resource does not exist, in either era:
 * `-32002` (up to 2025-11-25) or `-32602` Invalid Params answering
 * `resources/read` (2026-07-28).
 *
 * @since 0.2.0
 * @category guards
 */
export const isResourceNotFound = (error: unknown): error is ProtocolError =>
  error instanceof ProtocolError &&
  (error.code === ErrorCode.ResourceNotFound ||
    (error.code === ErrorCode.InvalidParams && error.method === "resources/read"))
