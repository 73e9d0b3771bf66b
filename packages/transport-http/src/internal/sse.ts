/** @internal */
export type Item =
  | { readonly _tag: "Event"; readonly event: string; readonly id: string | undefined; readonly data: string }
  | { readonly _tag: "Retry"; readonly millis: number }
  | { readonly _tag: "TooLarge" }

/** @internal */
export interface Reader {
  /** Feeds decoded text; returns what it completed. Never throws. */
  readonly feed: (chunk: string) => Array<Item>
  /**
   * Characters copied so far (joining the pieces of a line or of an
   * event's data). Tests use it to prove that the work is linear.
   */
  readonly copied: () => number
}

const digits = /^\d+$/

/**
 * A streaming `text/event-stream` parser (WHATWG rules: `\r\n`, `\n` or `\r`
 * line ends, one leading space stripped from values, `id` with NUL
 * ignored, `retry` digits only, comments, leading BOM). Work is linear in
 * the input: each chunk is scanned once with `indexOf`, an unterminated
 * line is kept as a list of pieces and joined once when it ends, and data
 * lines are joined once when their event ends. So a 15 MiB event costs one
 * pass, not one copy of the buffer per chunk.
 *
 * An event larger than `maxEventSize` characters (its lines, counted as
 * they arrive) is reported once as `TooLarge` and skipped up to its blank
 * line, with memory bounded by that limit.
 *
 * @internal
 */
export const makeReader = (maxEventSize: number): Reader => {
  let copied = 0
  let first = true
  /** the previous chunk ended in `\r`: a `\n` opening this one belongs to it */
  let afterCr = false
  /** pieces of the current, unterminated line */
  let pieces: Array<string> = []
  let piecesLength = 0
  /** size of the current event so far (its complete lines) */
  let eventSize = 0
  let skipping = false
  /** while skipping: the current line has content (it is not the blank line that ends the event) */
  let lineStarted = false
  let data: Array<string> = []
  let eventName: string | undefined
  let eventId: string | undefined
  let out: Array<Item> = []

  const resetEvent = () => {
    data = []
    eventName = undefined
    eventId = undefined
    eventSize = 0
  }

  const tooLarge = () => {
    out.push({ _tag: "TooLarge" })
    skipping = true
    resetEvent()
    lineStarted = pieces.length > 0
    pieces = []
    piecesLength = 0
  }

  const line = (text: string) => {
    if (text === "") {
      dispatch()
      resetEvent()
      return
    }
    eventSize += text.length + 1
    if (eventSize > maxEventSize) return tooLarge()
    if (text.charCodeAt(0) === 58 /* : */) return
    const colon = text.indexOf(":")
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? "" : text.slice(colon + 1)
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1)
    switch (field) {
      case "data":
        data.push(value)
        break
      case "event":
        eventName = value
        break
      case "id":
        if (!value.includes("\u0000")) eventId = value
        break
      case "retry":
        if (digits.test(value)) out.push({ _tag: "Retry", millis: Number(value) })
        break
    }
  }

  const dispatch = () => {
    if (data.length === 0) {
      // an event with an id and no data still moves the last event id on
      if (eventId !== undefined) out.push({ _tag: "Event", event: eventName || "message", id: eventId, data: "" })
      return
    }
    let text: string
    if (data.length === 1) {
      text = data[0]!
    } else {
      text = data.join("\n")
      copied += text.length
    }
    out.push({ _tag: "Event", event: eventName || "message", id: eventId, data: text })
  }

  const feed = (chunk: string): Array<Item> => {
    let position = 0
    const length = chunk.length
    if (first && length > 0) {
      first = false
      if (chunk.charCodeAt(0) === 0xfeff) position = 1
    }
    if (afterCr && position < length) {
      afterCr = false
      if (chunk.charCodeAt(position) === 10) position++
    }
    // next `\r` / `\n` at or after `position` (-1: none left in this chunk); each found once
    let nextCr = chunk.indexOf("\r", position)
    let nextLf = chunk.indexOf("\n", position)
    while (position < length) {
      if (nextCr >= 0 && nextCr < position) nextCr = chunk.indexOf("\r", position)
      if (nextLf >= 0 && nextLf < position) nextLf = chunk.indexOf("\n", position)
      const end = nextCr < 0 ? nextLf : nextLf < 0 ? nextCr : Math.min(nextCr, nextLf)
      if (end < 0) {
        const rest = position === 0 ? chunk : chunk.slice(position)
        if (skipping) {
          // only whether the line is blank matters
          if (rest.length > 0) lineStarted = true
        } else {
          pieces.push(rest)
          piecesLength += rest.length
          if (eventSize + piecesLength > maxEventSize) tooLarge()
        }
        break
      }
      if (skipping) {
        const blank = end === position && !lineStarted
        lineStarted = false
        if (blank) {
          skipping = false
          resetEvent()
        }
      } else {
        let text = chunk.slice(position, end)
        if (pieces.length > 0) {
          pieces.push(text)
          text = pieces.join("")
          copied += text.length
          pieces = []
          piecesLength = 0
        }
        line(text)
      }
      position = end + 1
      if (chunk.charCodeAt(end) === 13) {
        if (position < length) {
          if (chunk.charCodeAt(position) === 10) position++
        } else {
          afterCr = true
        }
      }
    }
    const items = out
    out = []
    return items
  }

  return { feed, copied: () => copied }
}
