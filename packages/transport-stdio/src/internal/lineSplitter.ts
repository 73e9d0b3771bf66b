/**
 * Splits a byte stream into text lines, bounded in memory.
 *
 * Works on bytes: `\n` (0x0A) never occurs inside a multi-byte UTF-8
 * sequence, so a character split across two chunks is simply joined before
 * the line is decoded. A trailing `\r` is dropped (CRLF). A line longer than
 * the limit is detected while it accumulates: its bytes are discarded up to
 * the next newline and one `Overflow` is reported in its place.
 */

/** @internal */
export const Overflow: unique symbol = Symbol.for("@mcp-effect/transport-stdio/LineSplitter/Overflow")

/** @internal */
export type Overflow = typeof Overflow

/** @internal */
export type Frame = string | Overflow

/** @internal */
export interface LineSplitter {
  /** Feeds one chunk; appends every line it completes (and overflows) to `out`. */
  readonly push: (chunk: Uint8Array, out: Array<Frame>) => void
  /** The input ended: appends the unterminated last line, if any. */
  readonly end: (out: Array<Frame>) => void
}

const LF = 0x0a
const CR = 0x0d

/** @internal */
export const make = (maxLineBytes: number): LineSplitter => {
  const decoder = new TextDecoder()
  // bytes of the current line seen in earlier chunks
  let pending: Array<Uint8Array> = []
  let pendingBytes = 0
  // the current line already overflowed: drop its bytes until the next LF
  let discarding = false

  const reset = () => {
    pending = []
    pendingBytes = 0
  }

  // `bytes` is a whole line without its LF
  const emitLine = (bytes: Uint8Array, out: Array<Frame>) => {
    const length = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length
    if (length > maxLineBytes) {
      out.push(Overflow)
    } else if (length > 0) {
      out.push(decoder.decode(length === bytes.length ? bytes : bytes.subarray(0, length)))
    }
  }

  const joinPending = (last: Uint8Array): Uint8Array => {
    if (pending.length === 0) return last
    const joined = new Uint8Array(pendingBytes + last.length)
    let offset = 0
    for (const part of pending) {
      joined.set(part, offset)
      offset += part.length
    }
    joined.set(last, offset)
    return joined
  }

  const push = (chunk: Uint8Array, out: Array<Frame>): void => {
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start)
      if (newline === -1) {
        if (discarding) return
        const total = pendingBytes + chunk.length - start
        // one byte over the limit is fine while it is a CR that may precede the LF
        if (total > maxLineBytes + 1 || (total === maxLineBytes + 1 && chunk[chunk.length - 1] !== CR)) {
          reset()
          discarding = true
          out.push(Overflow)
        } else {
          const rest = chunk.subarray(start)
          pending.push(rest)
          pendingBytes += rest.length
        }
        return
      }
      if (discarding) {
        discarding = false
      } else if (pendingBytes + newline - start > maxLineBytes + 1) {
        reset()
        out.push(Overflow)
      } else {
        emitLine(joinPending(chunk.subarray(start, newline)), out)
        reset()
      }
      start = newline + 1
    }
  }

  const end = (out: Array<Frame>): void => {
    if (!discarding && pending.length > 0) {
      emitLine(joinPending(new Uint8Array(0)), out)
    }
    reset()
    discarding = false
  }

  return { push, end }
}
