/**
 * A server's stderr, bounded whatever its readers do: the log hub behind
 * `StdioLogs` and the per-connection tail quoted when a server dies. Its
 * lines are masked first (`masker`): a server that prints its token on
 * stderr must not have it quoted in a status, an error or a log, nor
 * rewrite the line a person reads it on (ANSI escapes, CR, bidi controls).
 */
import * as ApprovalRequest from "@mcp-effect/core/ApprovalRequest"
import * as Redaction from "@mcp-effect/core/Redaction"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * What masks a server's stderr lines: the values of its configured `env`
 * and the other secrets it was given (e.g. what `${VAR}` references in its
 * arguments expanded to) become `<redacted>`, and the line is neutralised
 * (no escape sequence, control or bidi character reaches a terminal or a
 * status).
 *
 * @internal
 */
export const masker = (
  env: Readonly<Record<string, string>> | undefined,
  secrets: ReadonlyArray<string> | undefined
): (line: string) => string => {
  const mask = Redaction.masker([...Object.values(env ?? {}), ...(secrets ?? [])])
  return (line) => ApprovalRequest.neutralize(mask(line), "line")
}

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
export const makeLogHub = (): LogHub => new Hub()

// a class, so a transport's hub holds its fields, not a closure per operation
class Hub implements LogHub {
  readonly ring: Array<string> = []
  next = 0
  // made by the first subscriber (an empty `Set` is ~0.12 KiB a transport whose logs nobody reads keeps)
  subscribers: Set<Queue.Queue<string>> | undefined
  isShutdown = false

  recent(): Array<string> {
    const ring = this.ring
    return ring.length < replayLines ? ring.slice() : [...ring.slice(this.next), ...ring.slice(0, this.next)]
  }

  publish(line: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.ring.length < replayLines) this.ring.push(line)
      else this.ring[this.next] = line
      this.next = (this.next + 1) % replayLines
      // `offer` slides a full queue (`unsafeOffer` would refuse the new line instead)
      return this.subscribers === undefined ?
        Effect.void :
        Effect.forEach(this.subscribers, (queue) => Queue.offer(queue, line), { discard: true })
    })
  }

  get subscribe(): Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.flatMap(Queue.sliding<string>(subscriberCapacity), (queue) =>
        this.isShutdown ?
          Effect.as(Queue.shutdown(queue), queue) :
          Effect.sync(() => {
            // the replay and the registration happen with no publish in between
            for (const line of this.recent()) queue.unsafeOffer(line)
            ;(this.subscribers ??= new Set()).add(queue)
            return queue as Queue.Dequeue<string>
          })),
      (queue) =>
        Effect.suspend(() => {
          this.subscribers?.delete(queue as Queue.Queue<string>)
          return Queue.shutdown(queue)
        })
    )
  }

  // built when run: a transport whose logs nobody reads holds no stream stages
  get lines(): Stream.Stream<string> {
    return Stream.unwrapScoped(Effect.map(this.subscribe, (queue) => Stream.fromQueue(queue)))
  }

  get shutdown(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.isShutdown = true
      const queues = this.subscribers === undefined ? [] : [...this.subscribers]
      this.subscribers = undefined
      this.ring.length = 0
      return Effect.forEach(queues, Queue.shutdown, { discard: true })
    })
  }

  retained(): { readonly replay: number; readonly subscribers: ReadonlyArray<number> } {
    return {
      replay: this.ring.length,
      subscribers: [...(this.subscribers ?? [])].map((queue) => Option.getOrElse(queue.unsafeSize(), () => 0))
    }
  }
}

/** What the transport shows of its hub: the reading end alone. */
class HubLogs {
  constructor(readonly hub: LogHub) {}
  get lines(): Stream.Stream<string> {
    return this.hub.lines
  }
  get subscribe(): Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope> {
    return this.hub.subscribe
  }
}

/** @internal */
export const logsOf = (hub: LogHub): HubLogs => new HubLogs(hub)

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
