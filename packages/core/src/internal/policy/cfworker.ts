import { Validator } from "@cfworker/json-schema"
import type { Schema as CfSchema, SchemaDraft } from "@cfworker/json-schema"
import type * as JsonSchemaValidator from "../../JsonSchemaValidator.js"

// Loaded on demand (`import("./cfworker.js")` in `jsonSchemaValidator.ts`): nothing else may
// import this module statically, or bundles and cold starts pay for the library up front.

const drafts: ReadonlyArray<readonly [string, SchemaDraft]> = [
  ["draft/2020-12", "2020-12"],
  ["draft/2019-09", "2019-09"],
  ["draft-07", "7"],
  ["draft-04", "4"]
]

const draftOf = (schema: JsonSchemaValidator.JsonSchema): SchemaDraft => {
  const declared = typeof schema === "object" ? schema.$schema : undefined
  if (typeof declared !== "string") return "2020-12"
  return drafts.find(([marker]) => declared.includes(marker))?.[1] ?? "2020-12"
}

/** @internal */
export const compiler: JsonSchemaValidator.Compiler = (schema) => {
  // the library annotates the schema objects it dereferences: give it a copy,
  // so tool schemas stay exactly as the server sent them
  const copy = typeof schema === "boolean" ? schema : structuredClone(schema) as CfSchema
  const validator = new Validator(copy, draftOf(schema), false)
  return (value) => {
    const result = validator.validate(value)
    if (result.valid) return []
    return result.errors.map((unit) => ({
      instanceLocation: unit.instanceLocation.replace(/^#/, ""),
      keywordLocation: unit.keywordLocation.replace(/^#/, ""),
      message: unit.error
    }))
  }
}
