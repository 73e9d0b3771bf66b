import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

type Message = JsonRpc.Incoming
type Failure = McpTransport.ConnectionError

/**
 * The inbound side of one HTTP connection: what the body and stream readers
 * hand over, until the session takes it.
 *
 * - Bounded: at most `capacity` messages wait; a reader that finds it full
 *   is suspended until the session takes messages (backpressure reaches the
 *   server through TCP). Nothing is dropped. A batch is never split, so
 *   the buffer can exceed `capacity` by one batch (one HTTP body or SSE
 *   event).
 * - Two ways out: `stream` (pull) or `push` (the session's callback).
 *   Switching to `push` hands over the waiting messages and installs the
 *   callback in one synchronous step, so no interruption and no other fiber
 *   can strand a message in between.
 *
 * @internal
 */
export interface Inbound {
  readonly offer: (messages: ReadonlyArray<Message>) => Effect.Effect<void>
  /** `offer` when it need not wait: `false` (nothing taken) when the buffer is full */
  readonly offerNow: (messages: ReadonlyArray<Message>) => boolean
  /** ends the connection's input with an error (the first end wins) */
  readonly fail: (error: Failure) => Effect.Effect<void>
  readonly stream: Stream.Stream<Message, Failure>
  readonly push: (onMessages: (messages: ReadonlyArray<Message>) => void) => Effect.Effect<void, Failure>
  /** messages waiting (for tests) */
  readonly size: () => number
}

/** @internal */
export const make = (capacity: number): Inbound => {
  let buffer: Array<Message> = []
  let pushTo: ((messages: ReadonlyArray<Message>) => void) | undefined
  let failure: Failure | undefined
  // wake-ups: readers waiting for room, the taker waiting for messages, push waiting for the end
  let writers: Array<() => void> = []
  let readers: Array<() => void> = []

  const wake = (which: Array<() => void>) => {
    for (const resume of which) resume()
  }
  const wakeWriters = () => {
    const waiting = writers
    writers = []
    wake(waiting)
  }
  const wakeReaders = () => {
    const waiting = readers
    readers = []
    wake(waiting)
  }
  const wait = (register: (resume: () => void) => void, unregister: (resume: () => void) => void) =>
    Effect.async<void>((resume) => {
      const onWake = () => resume(Effect.void)
      register(onWake)
      return Effect.sync(() => unregister(onWake))
    })
  const waitForRoom = wait((r) => writers.push(r), (r) => writers = writers.filter((w) => w !== r))
  const waitForInput = wait((r) => readers.push(r), (r) => readers = readers.filter((w) => w !== r))

  const offerNow = (messages: ReadonlyArray<Message>): boolean => {
    if (failure !== undefined || messages.length === 0) return true
    if (pushTo !== undefined) {
      pushTo(messages)
      return true
    }
    if (buffer.length >= capacity) return false
    for (const message of messages) buffer.push(message)
    wakeReaders()
    return true
  }

  const offer = (messages: ReadonlyArray<Message>): Effect.Effect<void> =>
    Effect.suspend(() => offerNow(messages) ? Effect.void : Effect.zipRight(waitForRoom, offer(messages)))

  const fail = (error: Failure): Effect.Effect<void> =>
    Effect.sync(() => {
      if (failure !== undefined) return
      failure = error
      wakeReaders()
      wakeWriters()
    })

  const takeAll: Effect.Effect<Chunk.Chunk<Message>, Option.Option<Failure>> = Effect.suspend(() => {
    if (buffer.length > 0) {
      const taken = buffer
      buffer = []
      wakeWriters()
      return Effect.succeed(Chunk.unsafeFromArray(taken))
    }
    if (failure !== undefined) return Effect.fail(Option.some(failure))
    return Effect.zipRight(waitForInput, takeAll)
  })

  const awaitDone: Effect.Effect<void, Failure> = Effect.suspend(() =>
    failure !== undefined ? Effect.fail(failure) : Effect.zipRight(waitForInput, awaitDone)
  )

  const push = (onMessages: (messages: ReadonlyArray<Message>) => void): Effect.Effect<void, Failure> =>
    Effect.zipRight(
      Effect.sync(() => {
        // one synchronous step: hand over what waits, then deliver directly
        const early = buffer
        buffer = []
        pushTo = onMessages
        wakeWriters()
        if (early.length > 0) onMessages(early)
      }),
      awaitDone
    )

  return {
    offer,
    offerNow,
    fail,
    stream: Stream.repeatEffectChunkOption(takeAll),
    push,
    size: () => buffer.length
  }
}
