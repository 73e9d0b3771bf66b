import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as JsonRpc from "../../JsonRpc.js"
import type { ConnectionError, InboundBuffer } from "../../McpTransport.js"

type Message = JsonRpc.Incoming

/** @internal */
export const make = (capacity: number): InboundBuffer => {
  let buffer: Array<Message> = []
  let pushTo: ((messages: ReadonlyArray<Message>) => void) | undefined
  let ended: ConnectionError | undefined
  // wake-ups: offers waiting for room, the reader waiting for messages (or `push` for the end)
  let writers: Array<() => void> = []
  let readers: Array<() => void> = []

  const wakeWriters = () => {
    const waiting = writers
    writers = []
    for (const resume of waiting) resume()
  }
  const wakeReaders = () => {
    const waiting = readers
    readers = []
    for (const resume of waiting) resume()
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
    if (ended !== undefined || messages.length === 0) return true
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

  const end = (error: ConnectionError): void => {
    if (ended !== undefined) return
    ended = error
    wakeReaders()
    wakeWriters()
  }

  const takeAll: Effect.Effect<Chunk.Chunk<Message>, Option.Option<ConnectionError>> = Effect.suspend(() => {
    if (buffer.length > 0) {
      const taken = buffer
      buffer = []
      wakeWriters()
      return Effect.succeed(Chunk.unsafeFromArray(taken))
    }
    if (ended !== undefined) return Effect.fail(Option.some(ended))
    return Effect.zipRight(waitForInput, takeAll)
  })

  const awaitEnd: Effect.Effect<void, ConnectionError> = Effect.suspend(() =>
    ended !== undefined ? Effect.fail(ended) : Effect.zipRight(waitForInput, awaitEnd)
  )

  const push = (onMessages: (messages: ReadonlyArray<Message>) => void): Effect.Effect<void, ConnectionError> =>
    Effect.zipRight(
      Effect.sync(() => {
        // one synchronous step: hand over what waits, then deliver directly
        const early = buffer
        buffer = []
        pushTo = onMessages
        wakeWriters()
        if (early.length > 0) onMessages(early)
      }),
      awaitEnd
    )

  return {
    offer,
    offerNow,
    end,
    fail: (error) => Effect.sync(() => end(error)),
    incoming: Stream.repeatEffectChunkOption(takeAll),
    push,
    size: () => buffer.length
  }
}
