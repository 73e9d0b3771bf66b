import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"

/** One request waiting for the UI's answer. */
export interface Pending<Request, Answer> {
  readonly id: number
  readonly request: Request
  /** Why the last answer was refused (the request stays in the list for another answer). */
  readonly rejected: string | undefined
  readonly answer: (answer: Answer) => void
}

/** Requests from the engine that wait for a person: a list a hook renders, each answered once. */
export interface PendingQueue<Request, Answer> {
  readonly pending: Subscribable.Subscribable<ReadonlyArray<Pending<Request, Answer>>>
  /** Adds the request and waits for an accepted answer; interruption (the server gave up) withdraws it. */
  readonly ask: (request: Request) => Effect.Effect<Answer>
}

/**
 * A queue whose answers pass `check` first: an answer it refuses (fails with
 * the reason) is not returned; the request stays, same id, with `rejected`
 * set, until an answer passes.
 */
export const make = <Request, Answer>(
  check?: (request: Request, answer: Answer) => Effect.Effect<void, string>
): Effect.Effect<PendingQueue<Request, Answer>> =>
  Effect.map(SubscriptionRef.make<ReadonlyArray<Pending<Request, Answer>>>([]), (ref) => {
    let nextId = 1
    const withdraw = (id: number) => SubscriptionRef.update(ref, (list) => list.filter((p) => p.id !== id))
    return {
      pending: Subscribable.make({ get: SubscriptionRef.get(ref), changes: ref.changes }),
      ask: (request) =>
        Effect.flatMap(Deferred.make<Answer>(), (first) => {
          const id = nextId++
          let deferred = first
          const entry = (rejected: string | undefined): Pending<Request, Answer> => ({
            id,
            request,
            rejected,
            answer: (answer) => Deferred.unsafeDone(deferred, Effect.succeed(answer))
          })
          // reads `deferred` on each round: a refused answer puts a fresh one in its place
          const awaitChecked: Effect.Effect<Answer> = Effect.suspend(() =>
            Effect.flatMap(Deferred.await(deferred), (answer) =>
              check === undefined ? Effect.succeed(answer) : check(request, answer).pipe(
                Effect.as(answer),
                Effect.catchAll((reason) =>
                  Deferred.make<Answer>().pipe(
                    Effect.tap((next) => {
                      deferred = next
                      return SubscriptionRef.update(ref, (list) =>
                        list.map((p) => p.id === id ? entry(reason) : p))
                    }),
                    Effect.zipRight(awaitChecked)
                  )
                )
              ))
          )
          return SubscriptionRef.update(ref, (list) => [...list, entry(undefined)]).pipe(
            Effect.zipRight(awaitChecked),
            Effect.ensuring(withdraw(id))
          )
        })
    }
  })
