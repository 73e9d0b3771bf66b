/**
 * The eras a session speaks when the app names none: both, newest first.
 * `ClientSession.make` / `layer` and `McpClient.make` / `layer` /
 * `fromSession` take them from here, the one place that names both codecs;
 * `makeWith` / `layerWith` with one era never reach this module, so an app
 * pinned to one era bundles one codec.
 */
import type * as ProtocolEra from "../../ProtocolEra.js"
import type { EraCodec } from "./codec.js"
import * as Era2025 from "./era2025.js"
import * as Era2026 from "./era2026.js"

/**
 * The codecs of the eras a session is made with: every `ProtocolEra` value
 * is the codec of its era (`ProtocolEra2025.era`, `ProtocolEra2026.era`).
 *
 * @internal
 */
export const codecsOf = (eras: ReadonlyArray<ProtocolEra.ProtocolEra>): ReadonlyArray<EraCodec> =>
  eras.map((era) => era as EraCodec)

/**
 * Both eras, newest first.
 *
 * @internal
 */
export const both: ReadonlyArray<EraCodec> = [Era2026.codec, Era2025.codec]
