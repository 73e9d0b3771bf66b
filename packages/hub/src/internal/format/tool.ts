/**
 * What every provider's tool declaration starts from: the name as providers
 * take it, and what a model is told the tool does.
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type { Input } from "../../ToolFormat.js"
import { sanitizeName } from "./names.js"

/** A tool and its name as providers take it. @internal */
export const split = (input: Input): { readonly name: string; readonly tool: McpSchema.Tool } =>
  "inputSchema" in input
    ? { name: sanitizeName(input.name), tool: input }
    : { name: sanitizeName(input.name), tool: input.tool }

/** What a model is told a tool does: its description, else its title. @internal */
export const describe = (tool: McpSchema.Tool): string | undefined =>
  tool.description ?? tool.title ?? tool.annotations?.title

/** The `description` field of a declaration (left out when the tool has none). @internal */
export const descriptionOf = (tool: McpSchema.Tool): { readonly description?: string } => {
  const description = describe(tool)
  return description === undefined ? {} : { description }
}
