import * as McpError from "@mcp-effect/core/McpError"
import * as Redaction from "@mcp-effect/core/Redaction"
import * as WebSocketError from "../WebSocketError.js"

const names: Record<number, string> = {
  1000: "normal closure",
  1001: "going away",
  1002: "protocol error",
  1003: "unsupported data",
  1005: "no status code",
  1006: "closed without a close frame",
  1007: "invalid payload",
  1008: "policy violation",
  1009: "message too big",
  1010: "missing extension",
  1011: "server error",
  1012: "service restart",
  1013: "try again later",
  1014: "bad gateway",
  1015: "TLS handshake failure"
}

// the peer could not use what was sent: no retry makes the same data usable
const unusableData = new Set([1002, 1003, 1007, 1009])

/** A close code with its RFC 6455 name, e.g. `1011 server error`. @internal */
export const describe = (code: number): string =>
  `${code} ${names[code] ?? (code >= 4000 && code <= 4999 ? "application code" : "unassigned code")}`

/**
 * The error that ends a connection the server (or the network) closed.
 * The reason is the server's text: the message carries it neutralised (no
 * escape sequence, line break, control or bidi character rewrites what a
 * person reads); `ConnectionClosed.reason` keeps it as sent.
 *
 * @internal
 */
export const closedError = (description: string, code: number, reason: string): McpError.TransportError => {
  const shown = Redaction.neutralize(reason, "line")
  const message = `${description}: the connection closed (${describe(code)}${shown === "" ? "" : `: ${shown}`})`
  return new McpError.TransportError({
    reason: unusableData.has(code) ? "Read" : "Closed",
    phase: "close",
    message,
    cause: new WebSocketError.ConnectionClosed({ code, reason, message })
  })
}
