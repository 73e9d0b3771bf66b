import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as McpSchema from "../McpSchema.js"
import type * as McpTransport from "../McpTransport.js"
import * as SessionStore from "../SessionStore.js"
import type * as SessionModel from "./engine/sessionModel.js"
import * as Methods from "./methods.js"

/**
 * The session's side of resuming: what it offers the transport, what it
 * keeps in the `SessionStore` and when it forgets it.
 *
 * @internal
 */
export interface Resumer {
  readonly handoff: McpTransport.Resumption["Type"]
  /**
   * Called when a connection starts: the stored initialization when the
   * transport resumed the stored session on it, else `undefined` (and what
   * was stored no longer applies). Only the first connection may resume.
   */
  readonly connected: (connection: McpTransport.Connection, generation: number) => SessionModel.Initialized | undefined
  /** Saves the session once it is ready. */
  readonly ready: (initialized: SessionModel.Initialized) => Effect.Effect<void>
  /** Follows subscriptions and the log level through the requests that set them. */
  readonly track: <A, E>(
    method: string,
    params: Record<string, unknown> | undefined,
    effect: Effect.Effect<A, E>
  ) => Effect.Effect<A, E>
  /** Removes the stored session: the session is closed on purpose. */
  readonly forget: Effect.Effect<void>
  /** The era the server spoke last (stored per server identity), if known. */
  readonly era: SessionStore.Era | undefined
  /** Remembers the era the server spoke (stored when it changed). */
  readonly rememberEra: (era: SessionStore.Era) => Effect.Effect<void>
}

const getStream = "get"

const none: Resumer = {
  handoff: { resume: Effect.succeed(undefined), save: () => Effect.void },
  connected: () => undefined,
  ready: () => Effect.void,
  track: (_method, _params, effect) => effect,
  forget: Effect.void,
  era: undefined,
  rememberEra: () => Effect.void
}

/**
 * `name`: the server's name in the app (nothing is stored without one);
 * `endpoint`: where the transport reaches it (`McpTransport`'s `endpoint`):
 * what is stored is keyed by both.
 *
 * @internal
 */
export const make = (
  name: string | undefined,
  endpoint: string | undefined
): Effect.Effect<Resumer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const found = yield* Effect.serviceOption(SessionStore.SessionStore)
    if (name === undefined || Option.isNone(found)) return none
    const server: SessionStore.ServerIdentity = { name, endpoint }
    const store = found.value
    const scope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    let offer = Option.getOrUndefined(
      yield* Effect.catchAll(store.get(server), (error) =>
        Effect.as(Effect.logWarning("mcp: ignored the stored session", error.message), Option.none()))
    )
    let era = Option.getOrUndefined(yield* Effect.orElseSucceed(store.getEra(server), Option.none))
    let sessionId: Redacted.Redacted<string> | undefined
    let lastEventIds: Record<string, string> = {}
    let subscriptions = new Set<string>()
    let loggingLevel: McpSchema.LoggingLevel | undefined
    let initialized: SessionModel.Initialized | undefined
    let removed = false
    /** whether the store may hold this server's session */
    let holding = offer !== undefined
    let queued = false

    const write = Effect.suspend(() => {
      queued = false
      if (removed || initialized === undefined) {
        return Effect.void
      }
      if (sessionId === undefined) {
        // a server without sessions: nothing to resume
        if (!holding) {
          return Effect.void
        }
        holding = false
        return store.remove(server)
      }
      holding = true
      return store.set(server, {
        protocolVersion: initialized.protocolVersion,
        serverInfo: initialized.serverInfo,
        capabilities: initialized.capabilities,
        ...(initialized.instructions !== undefined ? { instructions: initialized.instructions } : {}),
        sessionId,
        lastEventIds,
        subscriptions: [...subscriptions],
        ...(loggingLevel !== undefined ? { loggingLevel } : {})
      })
    }).pipe(
      Effect.catchAll((error) =>
        Effect.logWarning("mcp: could not store the session", error.message)
      ),
      lock.withPermits(1)
    )

    // at most one write waits behind the running one; it stores the latest state
    const persist = Effect.suspend(() => {
      if (queued || removed) return Effect.void
      queued = true
      return Effect.asVoid(Effect.forkIn(write, scope))
    })

    const resumer: Resumer = {
      era,
      rememberEra: (spoken) =>
        Effect.suspend(() => {
          if (spoken === era) return Effect.void
          era = spoken
          // (written when it changed, at most once per server and era: a session closed at once still keeps it)
          return store.setEra(server, spoken).pipe(
            Effect.catchAll((error) => Effect.logWarning("mcp: could not store the era", error.message))
          )
        }),
      handoff: {
        resume: Effect.sync(() =>
          offer === undefined ? undefined : {
            sessionId: offer.sessionId,
            protocolVersion: offer.protocolVersion,
            lastEventId: offer.lastEventIds[getStream]
          }
        ),
        save: (update) =>
          Effect.suspend(() => {
            if (update.sessionId !== undefined) sessionId = update.sessionId
            if (update.lastEventId !== undefined) lastEventIds = { ...lastEventIds, [getStream]: update.lastEventId }
            return initialized === undefined ? Effect.void : persist
          })
      },
      connected: (connection, generation) => {
        const stored = offer
        offer = undefined
        initialized = undefined
        if (stored !== undefined && connection.resumed === true) {
          sessionId = stored.sessionId
          lastEventIds = { ...stored.lastEventIds }
          subscriptions = new Set(stored.subscriptions)
          loggingLevel = stored.loggingLevel
          return {
            protocolVersion: stored.protocolVersion,
            serverInfo: stored.serverInfo,
            capabilities: stored.capabilities,
            instructions: stored.instructions,
            generation,
            restored: { subscriptions: stored.subscriptions, loggingLevel: stored.loggingLevel }
          }
        }
        // a new session: the client subscribes and sets the level again
        sessionId = undefined
        lastEventIds = {}
        subscriptions = new Set()
        loggingLevel = undefined
        return undefined
      },
      ready: (init) =>
        Effect.suspend(() => {
          initialized = init
          return persist
        }),
      track: (method, params, effect) =>
        Effect.tap(effect, () =>
          Effect.suspend(() => {
            // what the method table says a method leaves on the server
            const tracked = Methods.lookup(method)?.tracked
            const uri = typeof params?.uri === "string" ? params.uri : undefined
            if (tracked === "subscribe" && uri !== undefined) subscriptions.add(uri)
            else if (tracked === "unsubscribe" && uri !== undefined) subscriptions.delete(uri)
            else if (tracked === "logLevel") loggingLevel = params?.level as McpSchema.LoggingLevel
            else return Effect.void
            return persist
          })),
      forget: Effect.suspend(() => {
        removed = true
        return store.remove(server)
      }).pipe(
        Effect.catchAll((error) => Effect.logWarning("mcp: could not remove the stored session", error.message)),
        lock.withPermits(1)
      )
    }
    return resumer
  })
