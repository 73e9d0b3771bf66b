import * as RequestHeaders from "@mcp-effect/core/RequestHeaders"
import { TypeId } from "./eras.js"
import type { Part2026 } from "./eras.js"
import * as Modern from "./modern.js"

/** @internal */
export const part: Part2026 = {
  [TypeId]: TypeId,
  era: "modern",
  headers: Modern.headers,
  isAnswer: Modern.isAnswer,
  followStream: Modern.followStream,
  requestHeaders: RequestHeaders.make
}
