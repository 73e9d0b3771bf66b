import { TypeId } from "./eras.js"
import type { Part2025 } from "./eras.js"
import * as Legacy from "./legacy.js"

/** @internal */
export const part: Part2025 = { [TypeId]: TypeId, era: "legacy", open: Legacy.open, post: Legacy.post }
