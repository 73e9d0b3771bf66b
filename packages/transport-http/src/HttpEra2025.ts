/**
 * The HTTP transport's part for the 2025 protocol era: the fallback to the
 * 2024-11-05 HTTP+SSE transport when a server refuses `initialize` with
 * 400/404/405 (Streamable HTTP itself, with sessions and resumable
 * streams, is in every transport). Pass it to `HttpTransport.layerWith`
 * beside a client made with `ProtocolEra2025.era`.
 *
 * @since 0.2.0
 */
import type * as HttpTransport from "./HttpTransport.js"
import * as internal from "./internal/era2025.js"

/**
 * @since 0.2.0
 * @category eras
 */
export const era: HttpTransport.Era = internal.part
