/**
 * The HTTP transport's part for the 2026-07-28 protocol era: the
 * `MCP-Protocol-Version` and mirrored `Mcp-*` headers of every POST (and
 * the `RequestHeaders` service they come from), the error answers of a
 * modern server, response streams that cannot be resumed, and the
 * `subscriptions/listen` stream posted again when it drops. Pass it to
 * `HttpTransport.layerWith` beside a client made with `ProtocolEra2026.era`.
 *
 * @since 0.2.0
 */
import type * as HttpTransport from "./HttpTransport.js"
import * as internal from "./internal/era2026.js"

/**
 * @since 0.2.0
 * @category eras
 */
export const era: HttpTransport.Era = internal.part
