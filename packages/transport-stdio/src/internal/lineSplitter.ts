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

// a whole line is decoded at once (never a part of a character): one decoder, with no state, serves every splitter
const decoder = new TextDecoder()

// a class, so each splitter holds its fields, not a closure per operation
class Splitter implements LineSplitter {
  // bytes of the current line seen in earlier chunks
  pending: Array<Uint8Array> = []
  pendingBytes = 0
  // the current line already overflowed: drop its bytes until the next LF
  discarding = false
  constructor(readonly maxLineBytes: number) {}

  reset(): void {
    // most lines come whole in one chunk: nothing was kept for them
    if (this.pending.length > 0) this.pending = []
    this.pendingBytes = 0
  }

  // `bytes` is a whole line without its LF
  emitLine(bytes: Uint8Array, out: Array<Frame>): void {
    const length = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length
    if (length > this.maxLineBytes) {
      out.push(Overflow)
    } else if (length > 0) {
      out.push(decoder.decode(length === bytes.length ? bytes : bytes.subarray(0, length)))
    }
  }

  joinPending(last: Uint8Array): Uint8Array {
    if (this.pending.length === 0) return last
    const joined = new Uint8Array(this.pendingBytes + last.length)
    let offset = 0
    for (const part of this.pending) {
      joined.set(part, offset)
      offset += part.length
    }
    joined.set(last, offset)
    return joined
  }

  push(chunk: Uint8Array, out: Array<Frame>): void {
    const maxLineBytes = this.maxLineBytes
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start)
      if (newline === -1) {
        if (this.discarding) return
        const total = this.pendingBytes + chunk.length - start
        // one byte over the limit is fine while it is a CR that may precede the LF
        if (total > maxLineBytes + 1 || (total === maxLineBytes + 1 && chunk[chunk.length - 1] !== CR)) {
          this.reset()
          this.discarding = true
          out.push(Overflow)
        } else {
          const rest = chunk.subarray(start)
          this.pending.push(rest)
          this.pendingBytes += rest.length
        }
        return
      }
      if (this.discarding) {
        this.discarding = false
      } else if (this.pendingBytes + newline - start > maxLineBytes + 1) {
        this.reset()
        out.push(Overflow)
      } else {
        this.emitLine(this.joinPending(chunk.subarray(start, newline)), out)
        this.reset()
      }
      start = newline + 1
    }
  }

  end(out: Array<Frame>): void {
    if (!this.discarding && this.pending.length > 0) {
      this.emitLine(this.joinPending(new Uint8Array(0)), out)
    }
    this.reset()
    this.discarding = false
  }
}

/** @internal */
export const make = (maxLineBytes: number): LineSplitter => new Splitter(maxLineBytes)
