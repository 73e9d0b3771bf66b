import * as Data from "effect/Data"

/** A check of the client program itself failed (missing tool, tool error, unexpected answer, unusable context). */
export class ScenarioFailed extends Data.TaggedError("ScenarioFailed")<{ readonly message: string }> {}
