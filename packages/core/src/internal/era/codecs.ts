/**
 * The codec of a protocol version.
 */
import type { EraCodec, Handed } from "./codec.js"
import * as Era2025 from "./era2025.js"
import * as Era2026 from "./era2026.js"
import { isModernVersion } from "./negotiation.js"

/**
 * The codec of the era `version` belongs to.
 *
 * @internal
 */
export const of = (version: string): EraCodec => isModernVersion(version) ? Era2026.codec : Era2025.codec

/**
 * What the transport is handed for `version`.
 *
 * @internal
 */
export const handed = (version: string): Handed => {
  const codec = of(version)
  return { protocolVersion: version, era: codec.era, cancel: codec.cancel }
}
