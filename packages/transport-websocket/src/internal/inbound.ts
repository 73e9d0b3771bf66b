import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import type * as McpError from "@mcp-effect/core/McpError"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

type Message = JsonRpc.Incoming

/**
 * The inbound side of one WebSocket connection. A WebSocket cannot be
 * paused (the browser API has no backpressure), so frames are handed on
 * synchronously as they arrive:
 *
 * - with `push` installed (the session's way), straight to its callback;
 * - otherwise into a buffer of at most `capacity` messages for `stream`.
 *   A reader that falls further behind ends the connection with the error
 *   `overflow` builds: nothing is dropped silently.
 *
 * `end` records how the link ended (the first end wins); both ways out end
 * with it once the buffered messages are taken.
 *
 * @internal
 */
export interface Inbound {
  /** hands messages on; `false` when they did not fit (the caller ends the connection) */
  readonly offer: (messages: ReadonlyArray<Message>) => boolean
  readonly end: (error: McpError.TransportError) => void
  readonly stream: Stream.Stream<Message, McpError.TransportError>
  readonly push: (onMessages: (messages: ReadonlyArray<Message>) => void) => Effect.Effect<void, McpError.TransportError>
}

/** @internal */
export const make = (capacity: number): Inbound => {
  let buffer: Array<Message> = []
  let deliver: ((messages: ReadonlyArray<Message>) => void) | undefined
  let ended: McpError.TransportError | undefined
  let waiting: Array<() => void> = []

  const wakeAll = () => {
    const wake = waiting
    waiting = []
    for (const resume of wake) resume()
  }
  const wait = Effect.async<void>((resume) => {
    const onWake = () => resume(Effect.void)
    waiting.push(onWake)
    return Effect.sync(() => {
      waiting = waiting.filter((w) => w !== onWake)
    })
  })

  const offer = (messages: ReadonlyArray<Message>): boolean => {
    if (ended !== undefined || messages.length === 0) return true
    if (deliver !== undefined) {
      deliver(messages)
      return true
    }
    if (buffer.length + messages.length > capacity) return false
    for (const message of messages) buffer.push(message)
    wakeAll()
    return true
  }

  const end = (error: McpError.TransportError) => {
    if (ended !== undefined) return
    ended = error
    wakeAll()
  }

  const takeAll: Effect.Effect<Chunk.Chunk<Message>, Option.Option<McpError.TransportError>> = Effect.suspend(() => {
    if (buffer.length > 0) {
      const taken = buffer
      buffer = []
      return Effect.succeed(Chunk.unsafeFromArray(taken))
    }
    if (ended !== undefined) return Effect.fail(Option.some(ended))
    return Effect.zipRight(wait, takeAll)
  })

  const awaitEnd: Effect.Effect<never, McpError.TransportError> = Effect.suspend(() =>
    ended !== undefined ? Effect.fail(ended) : Effect.zipRight(wait, awaitEnd)
  )

  const push = (onMessages: (messages: ReadonlyArray<Message>) => void) =>
    Effect.zipRight(
      Effect.sync(() => {
        // one synchronous step: what waits is delivered first, then every frame as it arrives
        const early = buffer
        buffer = []
        deliver = onMessages
        if (early.length > 0) onMessages(early)
      }),
      awaitEnd
    )

  return { offer, end, stream: Stream.repeatEffectChunkOption(takeAll), push }
}
