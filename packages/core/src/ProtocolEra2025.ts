/**
 * The 2025 protocol era as a value: sessions opened with `initialize`,
 * versions 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05. An app that
 * speaks only to servers of this era makes its client with
 * `McpClient.layerWith([ProtocolEra2025.era], options)` and bundles none of
 * the 2026-07-28 era's code.
 *
 * @since 0.2.0
 */
import * as internal from "./internal/era/era2025.js"
import type * as ProtocolEra from "./ProtocolEra.js"

/**
 * The 2025 era (`initialize`; `ping`, `logging/setLevel`,
 * `resources/subscribe` as requests of their own; tasks the client asks for).
 *
 * @since 0.2.0
 * @category eras
 */
export const era: ProtocolEra.ProtocolEra = internal.codec
