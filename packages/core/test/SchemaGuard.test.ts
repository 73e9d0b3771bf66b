import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as SchemaGuard from "../src/internal/wire/schemaGuard.js"
import * as McpSchema from "../src/McpSchema.js"

/** Every schema the core module exports: the guard must answer as `Schema.is` does for each. */
const wireSchemas: ReadonlyArray<readonly [string, Schema.Schema<unknown>]> = Object.entries(
  McpSchema as Record<string, unknown>
).flatMap(([name, value]) => Schema.isSchema(value) ? [[name, value as Schema.Schema<unknown>] as const] : [])

/** A value changed a little: a field dropped, replaced or added, an element swapped, deep inside. */
const mutated = (value: unknown, pick: ReadonlyArray<number>, replacement: unknown): unknown => {
  if (pick.length === 0 || typeof value !== "object" || value === null) return replacement
  const [at, ...rest] = pick
  if (Array.isArray(value)) {
    if (value.length === 0) return [replacement]
    const copy = [...value]
    copy[at % copy.length] = mutated(copy[at % copy.length], rest, replacement)
    return copy
  }
  const keys = Object.keys(value)
  if (keys.length === 0) return { x: replacement }
  const key = keys[at % keys.length]
  const copy: Record<string, unknown> = { ...value }
  if (rest.length === 0 && at % 3 === 0) delete copy[key]
  else copy[key] = mutated(copy[key], rest, replacement)
  return copy
}

/**
 * The results and notifications a client checks on every call, with values
 * generated to fit (some other schemas' generators filter too much to be quick).
 */
const generated = new Set([
  "CallToolResult",
  "CancelTaskResult",
  "CompleteResult",
  "ContentBlock",
  "CreateMessageRequestParams",
  "CreateTaskResult",
  "ElicitResult",
  "GetPromptResult",
  "GetTaskResult",
  "InitializeResult",
  "ListPromptsResult",
  "ListResourceTemplatesResult",
  "ListResourcesResult",
  "ListTasksResult",
  "ListToolsResult",
  "LoggingMessageNotificationParams",
  "ProgressNotificationParams",
  "ReadResourceResult",
  "ResourceUpdatedNotificationParams",
  "Task",
  "Tool"
])

const replacements = FastCheck.oneof(
  FastCheck.constantFrom(undefined, null, "text", "", 0, 1.5, NaN, true, [], {}, { type: "text" }, [1, "a"]),
  FastCheck.jsonValue({ maxDepth: 2 })
)

describe("SchemaGuard", () => {
  it("covers the wire schemas", () => {
    expect(wireSchemas.length).toBeGreaterThan(100)
    for (const name of generated) expect(wireSchemas.some(([n]) => n === name), name).toBe(true)
  })

  for (const [name, schema] of wireSchemas) {
    it(`answers as Schema.is for ${name}`, () => {
      const is = Schema.is(schema)
      const guard = SchemaGuard.make(schema)
      const agree = (value: unknown) => {
        expect(guard(value), JSON.stringify(value)).toBe(is(value))
      }
      // values that fit, then each changed a little
      if (generated.has(name)) {
        const valid = Arbitrary.make(schema)
        FastCheck.assert(
          FastCheck.property(valid, (value) => {
            expect(guard(value)).toBe(true)
            agree(value)
          }),
          { numRuns: 50, seed: 20261123 }
        )
        FastCheck.assert(
          FastCheck.property(
            valid,
            FastCheck.array(FastCheck.nat(), { minLength: 1, maxLength: 4 }),
            replacements,
            (value, pick, replacement) => agree(mutated(value, pick, replacement))
          ),
          { numRuns: 100, seed: 20261123 }
        )
      }
      FastCheck.assert(FastCheck.property(FastCheck.jsonValue({ maxDepth: 3 }), agree), { numRuns: 30, seed: 20261123 })
      for (const odd of [undefined, null, [], {}, "", 0, () => {}, Object.create(null)]) agree(odd)
    })
  }
})
