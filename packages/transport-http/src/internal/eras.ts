/**
 * The HTTP transport's era-specific parts, as values the app passes
 * (`HttpEra2025.era`, `HttpEra2026.era`): the connection reaches the
 * 2024-11-05 HTTP+SSE fallback and the 2026-07-28 rules only through them,
 * so a transport made without one bundles none of its code.
 */
import type * as RequestHeaders from "@mcp-effect/core/RequestHeaders"
import type * as Effect from "effect/Effect"
import type * as HttpTransport from "../HttpTransport.js"
import type * as Legacy from "./legacy.js"
import type * as Modern from "./modern.js"

/** @internal */
export const TypeId: HttpTransport.EraTypeId = Symbol.for(
  "@mcp-effect/transport-http/HttpTransport/Era"
) as HttpTransport.EraTypeId

/**
 * The 2025 era's part: the fallback to the 2024-11-05 HTTP+SSE transport
 * when `initialize` is refused with 400/404/405.
 *
 * @internal
 */
export interface Part2025 extends HttpTransport.Era {
  readonly era: "legacy"
  readonly open: typeof Legacy.open
  readonly post: typeof Legacy.post
}

/**
 * The 2026-07-28 era's part: the version and mirrored `Mcp-*` headers of
 * each POST, which error answers count before the server accepted a modern
 * request, the answer stream that cannot be resumed (the listen request
 * posted again), and the `RequestHeaders` service the session asks for the
 * `Mcp-Param-*` headers.
 *
 * @internal
 */
export interface Part2026 extends HttpTransport.Era {
  readonly era: "modern"
  readonly headers: typeof Modern.headers
  readonly isAnswer: typeof Modern.isAnswer
  readonly followStream: typeof Modern.followStream
  readonly requestHeaders: Effect.Effect<RequestHeaders.Service>
}

/**
 * The parts a transport was made with.
 *
 * @internal
 */
export interface Parts {
  readonly legacy: Part2025 | undefined
  readonly modern: Part2026 | undefined
}

/** @internal */
export const partsOf = (eras: ReadonlyArray<HttpTransport.Era>): Parts => {
  const parts = eras as ReadonlyArray<Part2025 | Part2026>
  return {
    legacy: parts.find((part): part is Part2025 => part.era === "legacy"),
    modern: parts.find((part): part is Part2026 => part.era === "modern")
  }
}
