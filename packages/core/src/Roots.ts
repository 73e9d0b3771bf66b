/**
 * The roots (directories or files) the client exposes to servers. Providing
 * this service is what makes the client advertise the `roots` capability;
 * changing the roots sends `notifications/roots/list_changed`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly list: Effect.Effect<ReadonlyArray<McpSchema.Root>>
  readonly set: (roots: ReadonlyArray<McpSchema.Root>) => Effect.Effect<void>
  /** Emits the roots on every change (not the current value). */
  readonly changes: Stream.Stream<ReadonlyArray<McpSchema.Root>>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Roots extends Context.Tag("@mcp-effect/core/Roots")<Roots, Service>() {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (initial: ReadonlyArray<McpSchema.Root>): Effect.Effect<Service> =>
  Effect.map(SubscriptionRef.make(initial), (ref) => ({
    list: SubscriptionRef.get(ref),
    set: (roots) => SubscriptionRef.set(ref, roots),
    changes: Stream.drop(ref.changes, 1)
  }))

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (initial: ReadonlyArray<McpSchema.Root>): Layer.Layer<Roots> => Layer.effect(Roots, make(initial))
