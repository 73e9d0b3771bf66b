/**
 * Newline-delimited JSON-RPC over a byte stream: lines from the splitter,
 * messages from the core codec.
 */
import * as JsonRpc from "@mcp-effect/core/JsonRpc"

const isBlank = (line: string): boolean => {
  const first = line.charCodeAt(0)
  // only a line starting with whitespace can be blank; don't trim the others
  return (first === 0x20 || first === 0x09 || first === 0x0d) && line.trim().length === 0
}

/**
 * Appends the messages of one line (several for a batch) to `out`.
 *
 * @internal
 */
export const decodeFrame = (line: string, maxMessageBytes: number, out: Array<JsonRpc.Incoming>): void => {
  if (!isBlank(line)) {
    for (const message of JsonRpc.decode(line, maxMessageBytes)) out.push(message)
  }
}

/** @internal */
export const encode = (message: JsonRpc.Message): string => JsonRpc.encode(message) + "\n"
