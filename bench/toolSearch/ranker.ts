/**
 * The interface every ranker of the tool-search bench implements: `build`
 * indexes the corpus once (timed as the index build) and returns the search
 * (timed per query), which answers `server/tool` ids, best first.
 */
import type { CorpusServer, ServerTool } from "./corpus.js"

export interface Ranker {
  readonly name: string
  readonly build: (tools: ReadonlyArray<ServerTool>) => (query: string, limit: number) => ReadonlyArray<string>
  /**
   * What the model would see before it searches, when this ranker comes with
   * its own deferred payload (catalogue and meta-tool, as the text sent to
   * the provider): the bench prints its tokens next to the reference payload.
   */
  readonly deferredPayload?: (servers: ReadonlyArray<CorpusServer>) => string
}
