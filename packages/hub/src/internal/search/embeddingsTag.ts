import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

// Below `ToolSearch`, which re-exports and documents it, so that the registry reads it without importing that module.
/** Re-exported by `ToolSearch`, which documents it. */
export class Embeddings extends Context.Tag("@mcp-effect/hub/ToolSearch/Embeddings")<Embeddings, {
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, unknown>
}>() {}
