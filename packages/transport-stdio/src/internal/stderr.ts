/**
 * A server's stderr, bounded whatever its readers do: the log hub behind
 * `StdioLogs` and the per-connection tail quoted when a server dies.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** @internal */
export const subscriberCapacity = 1024

/** @internal */
export const replayLines = 64

/** @internal */
export const tailLines = 20

/** @internal */
export const tailBytes = 4 * 1024

/** @internal */
export interface LogHub {
  readonly publish: (line: string) => Effect.Effect<void>
  readonly subscribe: Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
  readonly lines: Stream.Stream<string>
  /** Ends every subscription; later ones end at once. */
  readonly shutdown: Effect.Effect<void>
  /** Lines held for replay and for every subscriber, for tests. */
  readonly retained: () => { readonly replay: number; readonly subscribers: ReadonlyArray<number> }
}

/**
 * Each subscriber has its own sliding queue of `subscriberCapacity` lines
 * (a slow reader loses the oldest); the last `replayLines` lines are kept
 * in a ring for new subscribers. Nothing else is retained: unlike a
 * `PubSub` with `replay`, whose subscriptions keep a reference into an
 * ever-growing list (Effect issue 6804).
 *
 * @internal
 */
export const makeLogHub = (): LogHub => {
  const ring: Array<string> = []
  let next = 0
  const subscribers = new Set<Queue.Queue<string>>()
  let isShutdown = false

  const recent = (): Array<string> =>
    ring.length < replayLines ? ring.slice() : [...ring.slice(next), ...ring.slice(0, next)]

  const publish = (line: string) =>
    Effect.suspend(() => {
      if (ring.length < replayLines) ring.push(line)
      else ring[next] = line
      next = (next + 1) % replayLines
      // `offer` slides a full queue (`unsafeOffer` would refuse the new line instead)
      return Effect.forEach(subscribers, (queue) => Queue.offer(queue, line), { discard: true })
    })

  const subscribe = Effect.acquireRelease(
    Effect.flatMap(Queue.sliding<string>(subscriberCapacity), (queue) =>
      isShutdown ?
        Effect.as(Queue.shutdown(queue), queue) :
        Effect.sync(() => {
          // the replay and the registration happen with no publish in between
          for (const line of recent()) queue.unsafeOffer(line)
          subscribers.add(queue)
          return queue as Queue.Dequeue<string>
        })),
    (queue) =>
      Effect.suspend(() => {
        subscribers.delete(queue as Queue.Queue<string>)
        return Queue.shutdown(queue)
      })
  )

  return {
    publish,
    subscribe,
    // built when run: a transport whose logs nobody reads holds no stream stages
    lines: Stream.suspend(() => Stream.unwrapScoped(Effect.map(subscribe, (queue) => Stream.fromQueue(queue)))),
    shutdown: Effect.suspend(() => {
      isShutdown = true
      const queues = [...subscribers]
      subscribers.clear()
      ring.length = 0
      return Effect.forEach(queues, Queue.shutdown, { discard: true })
    }),
    retained: () => ({
      replay: ring.length,
      subscribers: [...subscribers].map((queue) => Option.getOrElse(queue.unsafeSize(), () => 0))
    })
  }
}

/** @internal */
export interface Tail {
  readonly add: (line: string) => void
  /** The last lines, oldest first, within `tailLines` and `tailBytes`. */
  readonly lines: () => ReadonlyArray<string>
}

/**
 * The last lines of one process's stderr, for the error that reports its
 * death. A line longer than `tailBytes` characters keeps its end.
 *
 * @internal
 */
export const makeTail = (): Tail => {
  const kept: Array<string> = []
  let bytes = 0
  return {
    add: (line) => {
      const clipped = line.length > tailBytes ? "…" + line.slice(line.length - tailBytes + 1) : line
      kept.push(clipped)
      bytes += clipped.length
      while (kept.length > tailLines || bytes > tailBytes) bytes -= kept.shift()!.length
    },
    lines: () => kept.slice()
  }
}
