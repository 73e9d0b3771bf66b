import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Platform from "./platform.js"

/**
 * What a chunk handler says: read on (`true`), stop (`false`), or an effect
 * that says so once it is done (a reader waiting for room).
 *
 * @internal
 */
export type Go<E> = boolean | Effect.Effect<boolean, E>

/**
 * Reads a response body chunk by chunk: `onChunk` gets each chunk and says
 * whether to read on. Ends when the body ends, `onChunk` says stop, or
 * `idle` (an effect that fails) wins over the wait for a chunk; a body left
 * unfinished is released (its request aborted).
 *
 * The body is read where the `HttpClient`'s response keeps it (the web
 * `ReadableStream` of a `fetch` response, the Node `Readable` of undici or
 * `node:http`; found through `platform.ts`, the one module that knows where). Running a `Stream` costs more than the rest of a round trip
 * for a body of two chunks. A Node body is read in its own callbacks, one
 * wait for the whole body while `onChunk` answers at once (with an idle
 * budget: one timed wait per chunk). A response that keeps its body
 * elsewhere is read through `response.stream`. With an `owner`, the body
 * is released when the owner's fiber ends instead of by a finalizer.
 *
 * @internal
 */
export const read = <E>(
  response: HttpClientResponse.HttpClientResponse,
  onChunk: (chunk: Uint8Array) => Go<E>,
  idle?: { readonly millis: number; readonly error: () => E } | undefined,
  owner?: Owner | undefined
): Effect.Effect<void, E | Failed> =>
  Effect.suspend(() => {
    const native = open(response)
    if (native === undefined) {
      const stream = Stream.mapError(response.stream, (error): Failed => ({ _tag: "Failed", cause: error.cause }))
      return Stream.runForEachWhile(
        idle === undefined ? stream : Stream.timeoutFail(stream, idle.error, idle.millis),
        (chunk) => lift(onChunk(chunk))
      )
    }
    // with an idle budget each wait for a chunk is timed on its own: the pump hands every chunk out
    const loop: Effect.Effect<void, E | Failed> = idle === undefined ?
      native.pump((chunk) => {
        const go = onChunk(chunk)
        return typeof go === "boolean" ? go : Effect.flatMap(go, then)
      }) :
      Effect.flatMap(
        Effect.timeoutFail(native.pump(Effect.succeed), { duration: idle.millis, onTimeout: idle.error }),
        (chunk) => chunk === undefined ? Effect.void : Effect.flatMap(lift(onChunk(chunk)), then)
      )
    const then = (go: boolean) => go ? loop : Effect.void
    // (the finalizer keeps `response` reachable until the end: a client may abort the request of a
    // response it finds collected)
    const release = () => native.release(response)
    if (owner === undefined) return Effect.ensuring(loop, Effect.sync(release))
    owner.own(release)
    return loop
  })

/**
 * The fiber reading a body, when it is a fiber of the transport's own that
 * ends with the reading (a send): `own` takes what releases the body, and
 * the fiber's end runs it, whatever ends it, in plain code. That spares the
 * finalizer (an uninterruptible region and its steps) around every read.
 *
 * @internal
 */
export interface Owner {
  readonly own: (release: () => void) => void
}

/** @internal */
export const lift = <E>(go: Go<E>): Effect.Effect<boolean, E> => typeof go === "boolean" ? (go ? more : stop) : go

/** (a pump that stopped or reached the end) */
const nothing = Effect.void as Effect.Effect<undefined>
const more: Effect.Effect<boolean> = Effect.succeed(true)
const stop: Effect.Effect<boolean> = Effect.succeed(false)

/**
 * Reading the body broke (the error the body's source gave).
 *
 * @internal
 */
export interface Failed {
  readonly _tag: "Failed"
  readonly cause: unknown
}

interface Native {
  /**
   * Reads chunk after chunk (a Node body in its own callbacks) while
   * `onChunk` answers at once (`true`: on, `false`: stop); an effect it
   * returns instead is what the read ends with. `undefined` at the end.
   */
  readonly pump: <A, E>(
    onChunk: (chunk: Uint8Array) => boolean | Effect.Effect<A, E>
  ) => Effect.Effect<A | undefined, E | Failed>
  /** stops reading; aborts the request when the body has not ended */
  readonly release: (keep: unknown) => void
}

interface NodeReadable {
  read(): unknown
  on(event: string, listener: (...args: Array<any>) => void): unknown
  removeListener(event: string, listener: (...args: Array<any>) => void): unknown
  destroy(): unknown
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

const isNodeReadable = (u: unknown): u is NodeReadable =>
  isObject(u) && typeof u.read === "function" && typeof u.on === "function" && typeof u.destroy === "function"

const isWebStream = (u: unknown): u is ReadableStream<Uint8Array> =>
  isObject(u) && typeof u.getReader === "function" && u.locked === false

/** The body where the platform's responses keep it (see `platform.ts`). */
const open = (response: HttpClientResponse.HttpClientResponse): Native | undefined => {
  const found = Platform.sourceOf(response)
  if (found === undefined) return undefined
  const source = found.source
  const native = isNodeReadable(source.body) ?
    fromReadable(source.body) :
    isWebStream(source.body) ?
    fromWebStream(source.body) :
    isNodeReadable(source) ?
    fromReadable(source) :
    undefined
  if (native !== undefined) Platform.unregister(found)
  return native
}

const fromReadable = (readable: NodeReadable): Native => {
  let ended = false
  let failure: Failed | undefined
  let wake: (() => void) | undefined
  const onReadable = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  const onEnd = () => {
    ended = true
    onReadable()
  }
  const onError = (cause: unknown) => {
    failure = { _tag: "Failed", cause }
    onReadable()
  }
  readable.on("readable", onReadable)
  readable.on("end", onEnd)
  readable.on("error", onError)
  return {
    pump: (onChunk) =>
      Effect.async((resume) => {
        const attempt = () => {
          while (true) {
            const chunk = readable.read()
            if (chunk === null) break
            const go = onChunk(chunk as Uint8Array)
            if (go === true) continue
            return resume(go === false ? nothing : go)
          }
          if (failure !== undefined) return resume(Effect.fail(failure))
          if (ended) return resume(nothing)
          wake = attempt
        }
        attempt()
        return Effect.sync(() => {
          wake = undefined
        })
      }),
    release: () => {
      readable.removeListener("readable", onReadable)
      readable.removeListener("end", onEnd)
      readable.removeListener("error", onError)
      if (!ended) readable.destroy()
    }
  }
}

const fromWebStream = (body: ReadableStream<Uint8Array>): Native => {
  const reader = body.getReader()
  let ended = false
  const next = Effect.tryPromise({ try: () => reader.read(), catch: (cause): Failed => ({ _tag: "Failed", cause }) })
  return {
    pump: (onChunk) => {
      const loop: Effect.Effect<any, any> = Effect.flatMap(next, (result) => {
        if (result.done) {
          ended = true
          return nothing
        }
        const go = onChunk(result.value)
        return go === true ? loop : go === false ? nothing : go
      })
      return loop
    },
    release: () => {
      if (!ended) reader.cancel().catch(() => {})
    }
  }
}
