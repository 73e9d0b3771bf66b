/**
 * The 2026-07-28 protocol era as a value: stateless sessions opened with
 * `server/discover`, the version, client info, capabilities and log level in
 * every request's `_meta`, results that ask for input or are task handles,
 * one `subscriptions/listen` for every notification. An app that speaks only
 * to servers of this era makes its client with
 * `McpClient.layerWith([ProtocolEra2026.era], options)` and bundles none of
 * the 2025 era's code.
 *
 * @since 0.2.0
 */
import * as internal from "./internal/era/era2026.js"
import type * as ProtocolEra from "./ProtocolEra.js"

/**
 * The 2026-07-28 era.
 *
 * @since 0.2.0
 * @category eras
 */
export const era: ProtocolEra.ProtocolEra = internal.codec
