/**
 * Pending continuations (core's `Continuations`: 2026-07-28 requests
 * answered `input_required`, kept in a `SharedStore`) for a UI to render
 * and answer. With the records in IndexedDB (`BrowserHub`'s storage) or a
 * shared backend, a page reloaded while the server waited for input lists
 * the same requests again and answers them: the call completes once,
 * whichever tab or process answers first.
 *
 * @since 0.4.0
 */
import * as Continuations from "@mcp-effect/core/Continuations"
import * as McpClient from "@mcp-effect/core/McpClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as React from "react"
import { useRuntime, useService, valueOf } from "./RuntimeProvider.js"

const none: ReadonlyArray<never> = []

/**
 * @since 0.4.0
 * @category models
 */
export interface Options extends Continuations.Filter {
  /**
   * The client answers are sent through (any `McpClient` of the
   * continuation's server). Default: the runtime's `McpClient`.
   */
  readonly client?: Continuations.Sender | undefined
}

/**
 * @since 0.4.0
 * @category models
 */
export interface UseContinuations {
  /** The continuations matching the filter (pending ones by default), oldest first, updated live. */
  readonly continuations: ReadonlyArray<Continuations.Continuation>
  /**
   * Answers one (responses keyed as in its `inputRequests`); resolves with
   * the request's result, rejects with the typed error
   * (`ContinuationAlreadyAnswered`, `ContinuationExpired`, ...).
   */
  readonly answer: (id: string, responses: { readonly [key: string]: unknown }) => Promise<unknown>
  /** Gives one up (`Expired`). */
  readonly expire: (id: string) => Promise<boolean>
}

/**
 * The continuations of the runtime's `Continuations` service, and how to
 * answer them. Without the service (or before the runtime is built), the
 * list is empty and `answer` rejects.
 *
 * @since 0.4.0
 * @category hooks
 */
export const useContinuations = (options?: Options): UseContinuations => {
  const runtime = useRuntime()
  const service = valueOf(useService(Continuations.Continuations))
  const [continuations, setContinuations] = React.useState<ReadonlyArray<Continuations.Continuation>>(none)
  const server = options?.server
  const identity = options?.identity
  const state = options?.state
  const client = options?.client

  React.useEffect(() => {
    if (runtime === null || service === undefined) return
    const filter: Continuations.Filter = { server, identity, state }
    const refresh = Effect.flatMap(service.list(filter), (list) => Effect.sync(() => setContinuations(list)))
    // subscribe first, then list: a change between the two is not missed
    const watch = Effect.scoped(
      Effect.flatMap(service.changes, (changes) => Effect.zipRight(refresh, Stream.runForEach(changes, () => refresh)))
    )
    return runtime.runCallback(Effect.ignoreLogged(watch))
  }, [runtime, service, server, identity, state])

  const answer = React.useCallback((id: string, responses: { readonly [key: string]: unknown }) => {
    if (runtime === null || service === undefined) {
      return Promise.reject(new Error("no Continuations service in the runtime"))
    }
    const sender = client === undefined ?
      Effect.flatMap(
        Effect.serviceOption(McpClient.McpClient),
        Option.match({
          onNone: () => Effect.dieMessage("useContinuations: no client given and no McpClient in the runtime"),
          onSome: (found): Effect.Effect<Continuations.Sender> => Effect.succeed(found)
        })
      ) :
      Effect.succeed(client)
    // rejects with the typed error itself (not wrapped in a FiberFailure), for `_tag` checks
    return runtime.runPromise(
      Effect.either(Effect.flatMap(sender, (sender) => service.answer(id, responses, { client: sender, identity })))
    ).then(Either.getOrThrowWith((error) => error))
  }, [runtime, service, client, identity])

  const expire = React.useCallback((id: string) =>
    runtime === null || service === undefined ?
      Promise.resolve(false) :
      runtime.runPromise(service.expire(id)), [runtime, service])

  return { continuations: service === undefined ? none : continuations, answer, expire }
}
