/**
 * The sign-ins in progress of one browser authorizer, as the app sees them:
 * a live list (`SignIns.signIns`) and the two things the app can do with one
 * (cancel it, open its window again). Each sign-in registers itself for the
 * time it waits and brings its own controls.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as BrowserAuthorizer from "../BrowserAuthorizer.js"
import type { OAuthError } from "../OAuthError.js"

/** @internal what a sign-in lets the app do */
export interface Controls {
  readonly cancel: Effect.Effect<void>
  readonly reopen: Effect.Effect<void, OAuthError>
}

/** @internal */
export interface Registry {
  readonly service: BrowserAuthorizer.SignInsService
  /** Lists the sign-in for as long as the scope is open; yields its id. */
  readonly track: (
    signIn: Omit<BrowserAuthorizer.SignIn, "id">,
    controls: (id: number) => Controls
  ) => Effect.Effect<number, never, Scope.Scope>
  readonly setStatus: (id: number, status: BrowserAuthorizer.SignInStatus) => Effect.Effect<void>
}

/** @internal built synchronously: `BrowserAuthorizer.make` is a plain constructor */
export const unsafeMake = (): Registry => {
  const list = Effect.runSync(SubscriptionRef.make<ReadonlyArray<BrowserAuthorizer.SignIn>>([]))
  const entries = new Map<number, { signIn: BrowserAuthorizer.SignIn; readonly controls: Controls }>()
  let nextId = 1
  const publish = Effect.suspend(() => SubscriptionRef.set(list, Array.from(entries.values(), (entry) => entry.signIn)))
  const controlsOf = <A, E>(
    id: number,
    f: (controls: Controls) => Effect.Effect<A, E>,
    otherwise: Effect.Effect<A, E>
  ) =>
    Effect.suspend(() => {
      const entry = entries.get(id)
      return entry === undefined ? otherwise : f(entry.controls)
    })
  const track: Registry["track"] = (signIn, controls) =>
    Effect.acquireRelease(
      Effect.suspend(() => {
        const id = nextId++
        entries.set(id, { signIn: { ...signIn, id }, controls: controls(id) })
        return Effect.as(publish, id)
      }),
      (id) => Effect.suspend(() => entries.delete(id) ? publish : Effect.void)
    )
  const setStatus: Registry["setStatus"] = (id, status) =>
    Effect.suspend(() => {
      const entry = entries.get(id)
      if (entry === undefined || entry.signIn.status === status) return Effect.void
      entry.signIn = { ...entry.signIn, status }
      return publish
    })
  return {
    service: {
      signIns: list,
      // a sign-in that has ended already has nothing to cancel or reopen
      cancel: (id) => controlsOf(id, (controls) => controls.cancel, Effect.void),
      reopen: (id) => controlsOf(id, (controls) => controls.reopen, Effect.void)
    },
    track,
    setStatus
  }
}
