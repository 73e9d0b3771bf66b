import type * as JsonSchemaValidator from "../../JsonSchemaValidator.js"

const maxIssuesInMessage = 5

const heads: Record<JsonSchemaValidator.ValidationError["reason"], string> = {
  Mismatch: "value does not match its schema",
  InvalidSchema: "schema cannot be used",
  Unavailable: "the validator could not be loaded"
}

/** @internal */
export const formatIssues = (
  reason: JsonSchemaValidator.ValidationError["reason"],
  issues: ReadonlyArray<JsonSchemaValidator.Issue>
): string => {
  const shown = issues.slice(0, maxIssuesInMessage).map((issue) =>
    `${issue.instanceLocation === "" ? "#" : issue.instanceLocation}: ${issue.message}`
  )
  const more = issues.length > maxIssuesInMessage ? [`(${issues.length - maxIssuesInMessage} more)`] : []
  return [heads[reason], ...shown, ...more].join("; ")
}

/**
 * The `@cfworker/json-schema` compiler, loaded on first use: a separate chunk for bundlers, a
 * module evaluated only when a schema is first checked for Node.
 *
 * @internal
 */
export const loadCfworker = (): Promise<JsonSchemaValidator.Compiler> =>
  import("./cfworker.js").then((module) => module.compiler)
