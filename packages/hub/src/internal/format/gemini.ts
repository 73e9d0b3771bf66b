/**
 * Gemini: function declarations (with the input schema translated to the
 * OpenAPI subset Gemini takes, `geminiSchema.ts`, or as JSON Schema), and
 * function responses (with media as inline data).
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type {
  GeminiFunctionDeclaration,
  GeminiJsonFunctionDeclaration,
  GeminiPart,
  GeminiResponse,
  Input
} from "../../ToolFormat.js"
import { hasMedia, parts, text } from "./content.js"
import * as GeminiNames from "./geminiNames.js"
import * as GeminiSchema from "./geminiSchema.js"
import { rootObject } from "./rootObject.js"
import { descriptionOf, split } from "./tool.js"

/**
 * A name as Gemini takes it: it must start with a letter or an underscore
 * (https://ai.google.dev/api/caching#FunctionDeclaration), so any other
 * first character gets a `_` in front. @internal
 */
export const nameOf = (name: string): string => /^[A-Za-z_]/.test(name) ? name : `_${name}`.slice(0, 64)

/** @internal */
export const declaration = (input: Input): GeminiFunctionDeclaration => {
  const { name, tool } = split(input)
  const parameters = GeminiSchema.parameters(tool.inputSchema)
  return { name: nameOf(name), ...descriptionOf(tool), ...(parameters === undefined ? {} : { parameters }) }
}

/** @internal */
export const jsonDeclaration = (input: Input): GeminiJsonFunctionDeclaration => {
  const { name, tool } = split(input)
  const root = rootObject(tool.inputSchema)
  const properties = root.properties
  const empty = typeof properties !== "object" || properties === null || Object.keys(properties).length === 0
  return { name: nameOf(name), ...descriptionOf(tool), ...(empty ? {} : { parametersJsonSchema: root }) }
}

/**
 * The arguments of a Gemini function call as the tool's server takes them:
 * a parameter declared under another name (see `geminiNames.ts`) gets its
 * server's name back.
 *
 * @internal
 */
export const callArguments = (input: Input, args: unknown): unknown =>
  GeminiNames.serverArguments(GeminiSchema.parameters(split(input).tool.inputSchema), args)

/**
 * `{ output }` for a result (its structured content when it has some and no
 * media, its text otherwise), `{ error }` for a failed call.
 *
 * @internal
 */
export const response = (result: McpSchema.CallToolResult): GeminiResponse => {
  if (result.isError === true) return { error: text(parts(result)) }
  if (result.structuredContent !== undefined && !hasMedia(result)) return { output: result.structuredContent }
  return { output: text(parts(result)) }
}

/** @internal */
export const result = (
  name: string,
  result: McpSchema.CallToolResult,
  options?: { readonly id?: string | undefined }
): ReadonlyArray<GeminiPart> => {
  const media = parts(result).flatMap((part) =>
    part._tag === "Media" && part.kind !== "file" ? [{ inlineData: { mimeType: part.mimeType, data: part.data } }] : []
  )
  return [
    {
      functionResponse: {
        name,
        ...(options?.id === undefined ? {} : { id: options.id }),
        response: response(result)
      }
    },
    ...media
  ]
}
