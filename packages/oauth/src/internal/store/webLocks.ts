/**
 * The refresh lock of the browser store: a Web Lock (`navigator.locks`),
 * which every tab and worker of one origin shares. Two tabs that find the
 * same token due then refresh it one after the other, and the second reads
 * the first one's result instead of spending a rotated refresh token twice.
 * The browser releases a lock whose tab closed or crashed, so it needs no
 * lease.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as TokenStore from "../../TokenStore.js"
import * as Records from "./records.js"
import * as Sealer from "./sealer.js"

/** The part of `LockManager` used here (absent from Node's and older browsers' globals). */
export interface Locks {
  readonly request: (
    name: string,
    options: { readonly mode: "exclusive"; readonly signal: AbortSignal },
    callback: () => Promise<void>
  ) => Promise<unknown>
}

/** The page's lock manager, if it has one. */
export const fromGlobal = (): Locks | undefined => {
  try {
    const locks = (globalThis.navigator as { readonly locks?: Locks } | undefined)?.locks
    return typeof locks?.request === "function" ? locks : undefined
  } catch {
    return undefined
  }
}

const failure = (message: string) =>
  new TokenStore.TokenStoreError({ operation: "exclusive", message: `the refresh lock failed: ${message}` })

/**
 * Holds the named lock for the scope, waiting while another tab holds it.
 * The wait is interruptible: the request is withdrawn, and a lock granted
 * meanwhile is given back by the scope's finalizer, which is in place before
 * the wait begins.
 */
export const hold = (locks: Locks, name: string): Effect.Effect<void, TokenStore.TokenStoreError, Scope.Scope> =>
  Effect.suspend(() => {
    let giveBack: (() => void) | undefined
    let withdrawn = false
    return Effect.acquireReleaseInterruptible(
      Effect.async<void, TokenStore.TokenStoreError>((resume) => {
        const abort = new AbortController()
        locks.request(name, { mode: "exclusive", signal: abort.signal }, () => {
          if (withdrawn) return Promise.resolve()
          return new Promise<void>((release) => {
            giveBack = release
            resume(Effect.void)
          })
        }).catch((cause: unknown) => {
          if (!withdrawn) resume(Effect.fail(failure(cause instanceof Error ? cause.message : String(cause))))
        })
        return Effect.sync(() => {
          withdrawn = true
          abort.abort()
        })
      }),
      () =>
        Effect.sync(() => {
          withdrawn = true
          giveBack?.()
        })
    )
  })

/** The store's `exclusive`: one lock per token record, named by a hash (lock names show in developer tools). */
export const exclusive = (locks: Locks, prefix: string) => (key: TokenStore.TokenKey) =>
  Sealer.sha256Hex(Records.tokensId(key)).pipe(
    Effect.mapError((error) => failure(error.message)),
    Effect.flatMap((hash) => hold(locks, `${prefix}:refresh:${hash}`))
  )
