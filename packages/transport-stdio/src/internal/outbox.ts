/**
 * Lines sent in one tick, written to the server's stdin together.
 *
 * A pipe write is a system call that also wakes the server: many requests
 * sent at once (a burst of concurrent calls) cost a few writes instead of
 * one each. The lines are handed to the backend in a microtask, so a lone
 * send waits for nothing but the end of the current task, and the order of
 * the lines is kept.
 *
 * Capacity: the outbox holds what is sent within one tick, up to
 * `batchChars` characters; a line that fills it writes everything at once.
 * So the server starts on the first requests of a burst while the rest are
 * still being made (with one write at the end of the tick, it would wait
 * for the whole burst). What waits in the pipe's own buffer is the
 * backend's to bound (`Process.hasRoom`).
 */

/**
 * Characters written together at most, unless the tick ends first: about 80
 * small requests, one write for each ~1 ms a burst takes to make them.
 *
 * @internal
 */
export const defaultBatchChars = 8 * 1024

/** @internal */
export interface Outbox {
  /** Queues one line (with its newline); the lines go out together at the end of the tick. */
  readonly add: (line: string) => void
  /** Writes what is queued now (before stdin is closed). */
  readonly flush: () => void
}

/** @internal */
// a class, so a session's outbox holds its fields and one bound callback, not a closure per operation
class Batch implements Outbox {
  readonly lines: Array<string> = []
  size = 0
  scheduled = false
  constructor(readonly write: (text: string) => void, readonly batchChars: number) {}

  // the microtask's callback (a function of its own: `queueMicrotask` calls it unbound)
  readonly flushScheduled = () => {
    this.scheduled = false
    this.flush()
  }

  add(line: string): void {
    this.lines.push(line)
    this.size += line.length
    if (this.size >= this.batchChars) {
      this.flush()
    } else if (!this.scheduled) {
      this.scheduled = true
      queueMicrotask(this.flushScheduled)
    }
  }

  flush(): void {
    const lines = this.lines
    if (lines.length === 0) return
    const text = lines.length === 1 ? lines[0] : lines.join("")
    lines.length = 0
    this.size = 0
    this.write(text)
  }
}

/** @internal */
export const make = (write: (text: string) => void, batchChars: number): Outbox => new Batch(write, batchChars)

/** Hands each line to `write` at once: for a backend whose writes wait for a fiber of its own, which batches them. */
class Direct implements Outbox {
  constructor(readonly add: (line: string) => void) {}
  flush(): void {}
}

/** @internal */
export const direct = (write: (line: string) => void): Outbox => new Direct(write)
