/**
 * What the stdio transport knows about a server process that went away.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * A server process exited (or was killed) while its connection was open:
 * on its own, not by the shutdown ladder. It is the `cause` of the
 * `TransportError` (reason `"Closed"`) that ends the connection, so the
 * error a session reports when a server dies before it was ever
 * initialized (a bad argument, a missing variable) names the exit code or
 * signal and quotes the end of its stderr.
 *
 * @since 0.2.0
 * @category errors
 */
export class ServerExited extends Schema.TaggedError<ServerExited>("@mcp-effect/transport-stdio/ServerExited")(
  "ServerExited",
  {
    pid: Schema.Number,
    /** The exit code, when the process exited by itself. */
    exitCode: Schema.optional(Schema.Number),
    /** The signal that killed it, when one did. */
    signal: Schema.optional(Schema.String),
    /** Its last stderr lines, oldest first: at most 20 lines and 4096 characters. */
    stderrTail: Schema.Array(Schema.String),
    message: Schema.String
  }
) {}
