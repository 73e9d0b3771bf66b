/**
 * The interface every ranker of the tool-search bench implements: `build`
 * indexes the corpus once (timed as the index build) and returns the search
 * (timed per query), which answers `server/tool` ids, best first.
 */
import type { ServerTool } from "./corpus.js"

export interface Ranker {
  readonly name: string
  readonly build: (tools: ReadonlyArray<ServerTool>) => (query: string, limit: number) => ReadonlyArray<string>
}
