import * as Sse from "@effect/experimental/Sse"
import * as Duration from "effect/Duration"

/** @internal */
export type Item =
  | { readonly _tag: "Event"; readonly event: string; readonly id: string | undefined; readonly data: string }
  | { readonly _tag: "Retry"; readonly millis: number }
  | { readonly _tag: "TooLarge" }

/** @internal */
export interface Reader {
  /** Feeds decoded text; returns what it completed. */
  readonly feed: (chunk: string) => Array<Item>
}

const blankLine = /\r\n\r\n|\n\n|\r\r|\n\r\n|\r\n\n/

/**
 * An SSE reader over `Sse.makeParser` that survives an oversized event: it
 * reports `TooLarge` once, skips the rest of that event (up to its blank
 * line) and goes on with the next one.
 *
 * @internal
 */
export const makeReader = (maxEventSize: number): Reader => {
  let items: Array<Item> = []
  const parser = Sse.makeParser((event) => {
    if (event._tag === "Event") {
      items.push({ _tag: "Event", event: event.event, id: event.id, data: event.data })
    } else {
      items.push({ _tag: "Retry", millis: Duration.toMillis(event.duration) })
    }
  }, { maxEventSize })
  let skipping = false
  let tail = ""

  const feed = (chunk: string): Array<Item> => {
    let text = chunk
    if (skipping) {
      const window = tail + text
      const match = blankLine.exec(window)
      if (match === null) {
        tail = window.slice(-3)
        return []
      }
      skipping = false
      tail = ""
      text = window.slice(match.index + match[0].length)
    }
    const error = parser.feed(text)
    if (error !== undefined) {
      items.push({ _tag: "TooLarge" })
      skipping = true
      tail = text.slice(-3)
    }
    const out = items
    items = []
    return out
  }
  return { feed }
}
