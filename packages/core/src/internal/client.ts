/**
 * A client on its session: `make` starts a session of its own with the
 * handlers and capabilities the context gives, `fromSession` follows a
 * session that already runs. The client itself is `client/service.ts`.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientSession from "../ClientSession.js"
import type * as McpClient from "../McpClient.js"
import type { McpTransport } from "../McpTransport.js"
import { build, type ClientOptions, type Hooks } from "./client/service.js"
import type { EraCodec } from "./era/codec.js"
import * as Handlers from "./handlers.js"
import * as Session from "./session.js"

/** @internal */
export const make = (
  options: McpClient.Options,
  codecs: ReadonlyArray<EraCodec>
): Effect.Effect<McpClient.Service, never, McpTransport | Scope.Scope> =>
  Effect.flatMap(Handlers.fromContext, (fromContext) =>
    build(options, (hooks) =>
      Session.make({
        ...options,
        capabilities: fromContext.capabilities,
        handlers: fromContext.handlers,
        onInitialized: hooks.onInitialized,
        // the app's own hook runs too (it sees what arrives before any subscriber, e.g. replayed events)
        onNotification: options.onNotification === undefined
          ? hooks.onNotification
          : both(options.onNotification, hooks.onNotification)
      }, codecs).pipe(Effect.tap(fromContext.announceRoots))))

const both = (
  first: NonNullable<ClientSession.Options["onNotification"]>,
  second: Hooks["onNotification"]
): Hooks["onNotification"] =>
(notification) => {
  const a = first(notification)
  const b = second(notification)
  return a === undefined ? b : b === undefined ? a : Effect.zipRight(a, b)
}

/**
 * A client on a session that already runs (its handlers and capabilities
 * are the session's): it follows the session's states and notifications.
 *
 * @internal
 */
export const fromSession = (
  options: ClientOptions
): Effect.Effect<McpClient.Service, never, ClientSession.ClientSession | Scope.Scope> =>
  build(options, (hooks) =>
    Effect.gen(function*() {
      const session = yield* ClientSession.ClientSession
      const notifications = yield* session.subscribeNotifications
      yield* notifications.pipe(
        Stream.runForEach((notification) => hooks.onNotification(notification) ?? Effect.void),
        Effect.forkScoped
      )
      // `changes` starts with the current state: a session that is ready already is seen
      yield* session.state.changes.pipe(
        Stream.runForEach((state) =>
          state._tag === "Ready"
            ? Effect.asVoid(Effect.forkScoped(hooks.onInitialized(state.initialized)))
            : Effect.void
        ),
        Effect.forkScoped
      )
      return session
    }))
