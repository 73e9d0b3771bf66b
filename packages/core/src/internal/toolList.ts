/**
 * `tools/list` decoded tool by tool: a page whose envelope is bad fails, but
 * one tool that does not decode (an `inputSchema` whose root is no object, a
 * missing name) is left out and reported, so it never hides the others.
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as McpClient from "../McpClient.js"
import * as McpSchema from "../McpSchema.js"
import { checker } from "./decode.js"

/** A `tools/list` page with its tools still unchecked. @internal */
export const ListToolsPage = Schema.Struct({
  ...McpSchema.PaginatedResult.fields,
  tools: Schema.Array(Schema.Unknown)
})

const checkTool = checker(McpSchema.Tool)

/** A name as a warning may show it: a string, capped (the server chose it). */
const nameOf = (raw: unknown): string | undefined => {
  const name = typeof raw === "object" && raw !== null ? (raw as { readonly name?: unknown }).name : undefined
  return typeof name === "string" ? name.slice(0, 128) : undefined
}

const decodeTool = ParseResult.decodeUnknownEither(McpSchema.Tool, { onExcessProperty: "preserve" })

/** Why a tool does not decode, as short as can be: each failing field's path and message. */
const whyNot = (raw: unknown): string => {
  try {
    const result = decodeTool(raw)
    if (result._tag === "Right") return "it could not be checked"
    return ParseResult.ArrayFormatter.formatErrorSync(new ParseResult.ParseError({ issue: result.left }))
      .map((issue) => `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
      .join("; ")
      .slice(0, 1000)
  } catch {
    return "it could not be checked"
  }
}

/**
 * A page's tools that decode; the others are added to `dropped`.
 *
 * @internal
 */
export const sort = (
  raw: ReadonlyArray<unknown>,
  dropped: Array<McpClient.DroppedTool>
): ReadonlyArray<McpSchema.Tool> => {
  const kept: Array<McpSchema.Tool> = []
  for (const item of raw) {
    const checked = checkTool(item)
    if (checked._tag === "Right") kept.push(checked.right)
    else dropped.push({ name: nameOf(item), message: whyNot(item) })
  }
  return kept
}

/**
 * Logs one warning per tool left out.
 *
 * @internal
 */
export const warn = (dropped: ReadonlyArray<McpClient.DroppedTool>): Effect.Effect<void> =>
  Effect.forEach(dropped, (tool) =>
    Effect.logWarning(
      `mcp: tools/list: left out tool ${tool.name === undefined ? "without a name" : JSON.stringify(tool.name)}: ` +
        tool.message
    ), { discard: true })
