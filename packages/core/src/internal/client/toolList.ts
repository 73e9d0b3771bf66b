/**
 * `tools/list` decoded tool by tool: a page whose envelope is bad fails, but
 * one tool that does not decode (an `inputSchema` whose root is no object, a
 * missing name) is left out and reported, so it never hides the others.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as McpSchema from "../../McpSchema.js"
import { checker } from "../engine/decode.js"
import type * as ClientModel from "./model.js"

/** A `tools/list` page with its tools still unchecked. @internal */
export const ListToolsPage = Schema.Struct({
  ...McpSchema.PaginatedResult.fields,
  tools: Schema.Array(Schema.Unknown)
})

const checkTool = checker(McpSchema.Tool)

/**
 * A page's tools that decode; the others are added to `dropped`, each with
 * its name (a string, capped: the server chose it) and the decode error
 * without its first line (the whole `Tool` type).
 *
 * @internal
 */
export const sort = (
  raw: ReadonlyArray<unknown>,
  dropped: Array<ClientModel.DroppedTool>
): ReadonlyArray<McpSchema.Tool> => {
  const kept: Array<McpSchema.Tool> = []
  for (const item of raw) {
    const checked = checkTool(item)
    if (checked._tag === "Right") kept.push(checked.right)
    else {
      const name = (item as { readonly name?: unknown } | null)?.name
      dropped.push({
        name: typeof name === "string" ? name.slice(0, 128) : undefined,
        message: checked.left.split("\n").slice(1).map((line) => line.replace(/^[\s└├│─]+/, "")).join(" ").slice(
          0,
          1000
        )
      })
    }
  }
  return kept
}

/** Logs one warning per tool left out. @internal */
export const warn = (dropped: ReadonlyArray<ClientModel.DroppedTool>): Effect.Effect<void> =>
  Effect.forEach(
    dropped,
    (tool) =>
      Effect.logWarning(`mcp: tools/list: left out tool ${JSON.stringify(tool.name ?? "(no name)")}: ${tool.message}`),
    {
      discard: true
    }
  )
