/**
 * The one owner of what the server is asked to remember for the client: the
 * resources it is subscribed to and the log level. In the 2025 era they are
 * requests of their own (`resources/subscribe`, `logging/setLevel`), sent
 * again when a new session starts; in the 2026-07-28 era the subscriptions
 * are one `subscriptions/listen` request, opened again with each change, and
 * the level rides in every request's `_meta`. Also the streams of what the
 * subscriptions deliver: resource updates and log messages.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import type * as JsonRpc from "../../JsonRpc.js"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import { decoder } from "../engine/decode.js"
import type { EraCodec } from "../era/codec.js"
import * as Codecs from "../era/codecs.js"
import * as Listen from "../era/listen.js"
import * as Session from "../session.js"
import { refresh } from "./lists.js"

const decodeResourceUpdated = decoder(McpSchema.ResourceUpdatedNotificationParams)
const decodeLogMessage = decoder(McpSchema.LoggingMessageNotificationParams)

const paramsOf = <A>(
  method: string,
  decode: (u: unknown) => Effect.Effect<A, unknown>,
  notifications: Stream.Stream<JsonRpc.Notification>
): Stream.Stream<A> =>
  notifications.pipe(
    Stream.filter((n) => n.method === method),
    // (not `Stream.mapEffect`: it brings `Stream.groupByKey`'s machinery into a browser bundle)
    Stream.flatMap((n) => Stream.fromEffectOption(Effect.mapError(decode(n.params ?? {}), () => Option.none())))
  )

/** @internal */
export const logMessagesOf = (notifications: Stream.Stream<JsonRpc.Notification>) =>
  paramsOf("notifications/message", decodeLogMessage, notifications)

/** @internal */
export const resourceUpdatesOf = (notifications: Stream.Stream<JsonRpc.Notification>) =>
  paramsOf("notifications/resources/updated", decodeResourceUpdated, notifications)

/**
 * What the subscriptions read of their client.
 *
 * @internal
 */
export interface SubscriptionsHost {
  readonly session: ClientSession.Service
}

/**
 * The subscriptions and log level of one client.
 *
 * @internal
 */
export class Subscriptions {
  readonly #uris = new Set<string>()
  #loggingLevel: McpSchema.LoggingLevel | undefined
  // the modern era's subscriptions/listen, made on first use: only a server of the modern era has it
  #listener: ReturnType<typeof Listen.make> | undefined

  readonly #host: SubscriptionsHost
  readonly #scope: Scope.Scope

  constructor(host: SubscriptionsHost, scope: Scope.Scope) {
    this.#host = host
    this.#scope = scope
  }

  #listen(init: ClientSession.Initialized): Effect.Effect<void, McpError.McpClientError> {
    return Effect.suspend(() =>
      (this.#listener ??= Codecs.listener(() => this.#host.session, this.#scope)).update(
        Listen.filterOf(init.capabilities, this.#uris)
      )
    )
  }

  /** What a new connection of the session is told again, or remembers (a resumed session). */
  onInitialized(init: ClientSession.Initialized, codec: EraCodec): Effect.Effect<void> {
    const subscriptions = this
    const session = this.#host.session
    return Effect.gen(function*() {
      if (codec.subscriptions === "listen") {
        yield* Effect.forkIn(refresh(subscriptions.#listen(init)), subscriptions.#scope)
      } else if (init.restored !== undefined) {
        // the server still holds them for the resumed session: only remembered for a later new session
        for (const uri of init.restored.subscriptions) subscriptions.#uris.add(uri)
        subscriptions.#loggingLevel = init.restored.loggingLevel
      }
      // the level rides on every request: a session that reached this era from the other one gets it now
      if (codec.logLevel === "meta" && subscriptions.#loggingLevel !== undefined) {
        Session.setLogLevel(session, subscriptions.#loggingLevel)
      }
      if (init.generation > 1 && codec.subscriptions === "subscribe") {
        for (const uri of subscriptions.#uris) {
          yield* refresh(session.request("resources/subscribe", { uri }))
        }
      }
      if (init.generation > 1 && codec.logLevel === "request" && subscriptions.#loggingLevel !== undefined) {
        yield* refresh(session.request("logging/setLevel", { level: subscriptions.#loggingLevel }))
      }
    })
  }

  subscribe(uri: string): Effect.Effect<void, McpError.McpClientError> {
    const session = this.#host.session
    return Effect.flatMap(session.initialized, (init) => {
      if (!init.capabilities.resources?.subscribe) {
        return Effect.fail(
          new McpError.UnsupportedCapability({ capability: "resources.subscribe", method: "resources/subscribe" })
        )
      }
      if (Codecs.of(init.protocolVersion).subscriptions === "listen") {
        // the listen request is opened again with the URI added; a refusal takes it out again
        return Effect.sync(() => this.#uris.add(uri)).pipe(
          Effect.zipRight(this.#listen(init)),
          Effect.tapError(() => Effect.sync(() => this.#uris.delete(uri)))
        )
      }
      return Effect.asVoid(session.request("resources/subscribe", { uri })).pipe(
        Effect.tap(() => Effect.sync(() => this.#uris.add(uri)))
      )
    })
  }

  unsubscribe(uri: string): Effect.Effect<void, McpError.McpClientError> {
    const session = this.#host.session
    return Effect.sync(() => this.#uris.delete(uri)).pipe(
      Effect.zipRight(session.initialized),
      Effect.flatMap((init) =>
        Codecs.of(init.protocolVersion).subscriptions === "listen" ?
          this.#listen(init) :
          Effect.asVoid(session.request("resources/unsubscribe", { uri }))
      )
    )
  }

  /**
   * Sets the level on a session that has the `logging` capability (`init`),
   * and remembers it. Called as the request runs: in the 2026-07-28 era the
   * level is set on the session at once.
   */
  setLoggingLevel(
    init: ClientSession.Initialized,
    level: McpSchema.LoggingLevel
  ): Effect.Effect<void, McpError.McpClientError> {
    const session = this.#host.session
    const codec = Codecs.of(init.protocolVersion)
    const set: Effect.Effect<void, McpError.McpClientError> = codec.logLevel === "request" ?
      Effect.asVoid(session.request("logging/setLevel", { level })) :
      // 2026-07-28: no request; every later request carries the level in its _meta
      Session.setLogLevel(session, level) ?
      Effect.void :
      Effect.fail(
        new McpError.UnsupportedCapability({
          capability: "logging",
          method: "logging/setLevel",
          protocolVersion: init.protocolVersion
        })
      )
    return Effect.tap(set, () => Effect.sync(() => this.#loggingLevel = level))
  }
}
