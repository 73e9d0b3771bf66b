/**
 * What the WebSocket transport puts in a `TransportError`'s `cause`, for
 * callers that want the close code.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * The link closed: the close frame's code and reason (RFC 6455, section
 * 7.4), or `1006` when the link broke without one. The `TransportError`
 * that carries it has reason `"Closed"` (`"Read"` for `1002`, `1003`,
 * `1007` and `1009`, which say the data could not be used) and phase
 * `"close"`.
 *
 * @since 0.2.0
 * @category errors
 */
export class ConnectionClosed extends Schema.TaggedError<ConnectionClosed>(
  "@mcp-effect/transport-websocket/ConnectionClosed"
)("ConnectionClosed", {
  code: Schema.Number,
  reason: Schema.String,
  message: Schema.String
}) {}
