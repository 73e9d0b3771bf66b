/**
 * `subscriptions/listen` (2026-07-28): one long-lived request whose
 * notifications (`list_changed`, `resources/updated`) arrive like any other
 * and reach the client's views and `resourceUpdates` unchanged. Changing
 * what it listens to ends the request (interrupting it sends
 * `notifications/cancelled`) and opens a new one; the new one counts as open
 * once the server acknowledged it. The session sends it again on a new
 * connection (it is replayed like a read), as the revision asks.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as SessionModel from "../engine/sessionModel.js"

const acknowledged = "notifications/subscriptions/acknowledged"

/**
 * The listen request's method: the era's codec names it to the transport
 * (`SendOptions.kind: "listen"`), whose stream it keeps open.
 *
 * @internal
 */
export const method = "subscriptions/listen"

/** How long a new listen request may wait for its acknowledgement. */
const acknowledgeMillis = 60_000

/** @internal */
export interface Listener {
  /** Listens to `filter` from now on (nothing when it is empty); returns once the server acknowledged it. */
  readonly update: (filter: McpSchema.SubscriptionFilter) => Effect.Effect<void, McpError.McpClientError>
}

const keyOf = (filter: McpSchema.SubscriptionFilter) =>
  JSON.stringify([
    filter.toolsListChanged ?? false,
    filter.promptsListChanged ?? false,
    filter.resourcesListChanged ?? false,
    [...(filter.resourceSubscriptions ?? [])].sort()
  ])

const isEmpty = (filter: McpSchema.SubscriptionFilter) =>
  !filter.toolsListChanged && !filter.promptsListChanged && !filter.resourcesListChanged &&
  (filter.resourceSubscriptions ?? []).length === 0

/**
 * The filter the client's state asks for: the list_changed notifications the
 * server offers, and updates of the resources subscribed to.
 *
 * @internal
 */
export const filterOf = (
  capabilities: McpSchema.ServerCapabilities,
  subscriptions: Iterable<string>
): McpSchema.SubscriptionFilter => {
  const uris = [...subscriptions]
  return {
    ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(capabilities.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(capabilities.resources?.listChanged ? { resourcesListChanged: true } : {}),
    ...(uris.length > 0 ? { resourceSubscriptions: uris } : {})
  }
}

/**
 * A listener on the session; its request ends with the scope.
 *
 * @internal
 */
export const make = (
  session: () => SessionModel.Service,
  scope: Scope.Scope
): Listener => {
  // made on the first update: only a session of the 2026 era listens
  let lock: Effect.Semaphore | undefined
  let current:
    | { readonly key: string; readonly fiber: Fiber.RuntimeFiber<unknown, McpError.McpClientError> }
    | undefined

  const open = (filter: McpSchema.SubscriptionFilter) =>
    Effect.scoped(Effect.gen(function*() {
      // subscribed before the request is sent: the acknowledgement cannot be missed
      const notifications = yield* session().subscribeNotifications
      const fiber = yield* session().request(
        method,
        { notifications: filter },
        { timeout: "none", maxTotalTimeout: "none", replay: true, resetTimeoutOnProgress: false }
      ).pipe(Effect.forkIn(scope))
      current = { key: keyOf(filter), fiber }
      const ack = notifications.pipe(
        Stream.filter((n) => n.method === acknowledged),
        Stream.runHead,
        Effect.asVoid
      )
      // a listen that ends (or fails) before any acknowledgement: its outcome is the answer
      const ended = Effect.asVoid(Fiber.join(fiber))
      yield* Effect.raceFirst(ack, ended).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(acknowledgeMillis),
          onTimeout: () =>
            new McpError.RequestTimeout({ method: "subscriptions/listen", kind: "idle", millis: acknowledgeMillis })
        }),
        Effect.tapError(() => close)
      )
    }))

  const close = Effect.suspend(() => {
    const fiber = current?.fiber
    current = undefined
    return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
  })

  const update = (filter: McpSchema.SubscriptionFilter) =>
    Effect.suspend(() =>
      (lock ??= Effect.unsafeMakeSemaphore(1)).withPermits(1)(Effect.suspend(() => {
        const key = keyOf(filter)
        const running = current !== undefined && current.fiber.unsafePoll() === null
        if (running && current!.key === key) return Effect.void
        return Effect.zipRight(close, isEmpty(filter) ? Effect.void : open(filter))
      }))
    )

  return { update }
}
