/**
 * The rankers the tool-search bench compares, baseline first. Add a ranker
 * here (it implements `Ranker` from `./ranker.js`) and `npm run bench` prints
 * its row next to the baseline.
 */
import { bm25 } from "./bm25.js"
import { hubRanker } from "./hubRanker.js"
import type { Ranker } from "./ranker.js"

export const rankers: ReadonlyArray<Ranker> = [bm25, hubRanker]
