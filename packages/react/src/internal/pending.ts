import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"

/** One request waiting for the UI's answer. */
export interface Pending<Request, Answer> {
  readonly id: number
  readonly request: Request
  readonly answer: (answer: Answer) => void
}

/** Requests from the engine that wait for a person: a list a hook renders, each answered once. */
export interface PendingQueue<Request, Answer> {
  readonly pending: Subscribable.Subscribable<ReadonlyArray<Pending<Request, Answer>>>
  /** Adds the request and waits for its answer; interruption (the server gave up) withdraws it. */
  readonly ask: (request: Request) => Effect.Effect<Answer>
}

export const make = <Request, Answer>(): Effect.Effect<PendingQueue<Request, Answer>> =>
  Effect.map(SubscriptionRef.make<ReadonlyArray<Pending<Request, Answer>>>([]), (ref) => {
    let nextId = 1
    const withdraw = (id: number) => SubscriptionRef.update(ref, (list) => list.filter((p) => p.id !== id))
    return {
      pending: Subscribable.make({ get: SubscriptionRef.get(ref), changes: ref.changes }),
      ask: (request) =>
        Effect.flatMap(Deferred.make<Answer>(), (deferred) => {
          const id = nextId++
          const entry: Pending<Request, Answer> = {
            id,
            request,
            answer: (answer) => Deferred.unsafeDone(deferred, Effect.succeed(answer))
          }
          return SubscriptionRef.update(ref, (list) => [...list, entry]).pipe(
            Effect.zipRight(Deferred.await(deferred)),
            Effect.ensuring(withdraw(id))
          )
        })
    }
  })
