import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as JsonRpc from "../../JsonRpc.js"
import type { ConnectionError, Inbound, InboundBuffer } from "../../McpTransport.js"

type Message = JsonRpc.Incoming

/** `end` before it was recorded; `ended` holds `undefined` for a clean end. */
const open: unique symbol = Symbol.for("@mcp-effect/core/InboundBuffer/open")

/**
 * The buffer as one object whose methods read its fields: every connection
 * has one, an idle session keeps it, so it holds no closure per operation.
 */
class Buffer implements InboundBuffer {
  waiting: Array<Message> = []
  onMessages: ((messages: ReadonlyArray<Message>) => void) | undefined
  onEnd: ((error: ConnectionError | undefined) => void) | undefined
  ended: ConnectionError | undefined | typeof open = open
  /** offers waiting for room (made by the first) */
  writers: Array<() => void> | undefined

  constructor(readonly capacity: number) {}

  wakeWriters(): void {
    const writers = this.writers
    if (writers === undefined || writers.length === 0) return
    this.writers = []
    for (const resume of writers) resume()
  }

  offerNow(messages: ReadonlyArray<Message>): boolean {
    if (this.ended !== open || messages.length === 0) return true
    const onMessages = this.onMessages
    if (onMessages !== undefined) {
      onMessages(messages)
      return true
    }
    if (this.waiting.length >= this.capacity) return false
    for (const message of messages) this.waiting.push(message)
    return true
  }

  offer(messages: ReadonlyArray<Message>): Effect.Effect<void> {
    return Effect.suspend(() =>
      this.offerNow(messages) ? Effect.void : Effect.zipRight(this.waitForRoom, this.offer(messages))
    )
  }

  get waitForRoom(): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      const onRoom = () => resume(Effect.void)
      ;(this.writers ??= []).push(onRoom)
      return Effect.sync(() => {
        if (this.writers !== undefined) this.writers = this.writers.filter((w) => w !== onRoom)
      })
    })
  }

  end(error?: ConnectionError): void {
    if (this.ended !== open) return
    this.ended = error
    this.wakeWriters()
    const onEnd = this.onEnd
    if (onEnd === undefined) return
    this.onEnd = undefined
    this.onMessages = undefined
    onEnd(error)
  }

  fail(error: ConnectionError): Effect.Effect<void> {
    return Effect.sync(() => this.end(error))
  }

  listen(
    onMessages: (messages: ReadonlyArray<Message>) => void,
    onEnd: (error: ConnectionError | undefined) => void
  ): () => void {
    // one synchronous step: what waits is handed over, then each batch goes straight to the listener
    const early = this.waiting
    this.waiting = []
    if (early.length > 0) onMessages(early)
    this.wakeWriters()
    const ended = this.ended
    if (ended !== open) {
      onEnd(ended)
      return noop
    }
    this.onMessages = onMessages
    this.onEnd = onEnd
    return () => {
      if (this.onMessages !== onMessages) return
      this.onMessages = undefined
      this.onEnd = undefined
    }
  }

  size(): number {
    return this.waiting.length
  }
}

const noop = () => {}

/** @internal */
export const make = (capacity: number): InboundBuffer => new Buffer(capacity)

/** @internal */
export const toStream = (inbound: Inbound): Stream.Stream<Message, ConnectionError> =>
  Stream.asyncScoped<Message, ConnectionError>(
    (emit) =>
      Effect.acquireRelease(
        Effect.sync(() =>
          inbound.listen(
            (messages) => void emit.chunk(Chunk.fromIterable(messages)),
            (error) => void (error === undefined ? emit.end() : emit.fail(error))
          )
        ),
        (stop) => Effect.sync(stop)
      ),
    "unbounded"
  )
