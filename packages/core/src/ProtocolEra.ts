/**
 * A protocol era as a value. The client speaks two eras: the 2025 era
 * (`ProtocolEra2025.era`: sessions opened with `initialize`, versions
 * 2025-11-25 down to 2024-11-05) and the 2026-07-28 era
 * (`ProtocolEra2026.era`: stateless, opened with `server/discover`, the
 * version and client info in every request's `_meta`). Each value carries
 * its era's code (handshake, `_meta`, result rounds, subscriptions), so the
 * eras an app hands to `McpClient.layerWith` / `ClientSession.layerWith`
 * are the only ones it bundles. `McpClient.layer` offers both.
 *
 * @since 0.2.0
 */
import type * as SessionModel from "./internal/engine/sessionModel.js"

/**
 * @since 0.2.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@mcp-effect/core/ProtocolEra")

/**
 * @since 0.2.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * One protocol era, with everything the session needs to speak it.
 *
 * @since 0.2.0
 * @category models
 */
export interface ProtocolEra {
  readonly [TypeId]: TypeId
  readonly era: SessionModel.Era
  /** The protocol versions of the era this client speaks, newest first. */
  readonly versions: ReadonlyArray<string>
}

/**
 * Whether a value is a protocol era.
 *
 * @since 0.2.0
 * @category guards
 */
export const isProtocolEra = (u: unknown): u is ProtocolEra => typeof u === "object" && u !== null && TypeId in u
