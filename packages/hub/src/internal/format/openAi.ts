/**
 * OpenAI: tools for Chat Completions and Responses (strict schemas where a
 * tool's input schema allows them, `openAiStrict.ts`), tool results for
 * both, and Responses' deferred loading (`tool_search` with one namespace
 * per server).
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type {
  DeferredInput,
  DeferredOptions,
  Input,
  OpenAiChatTool,
  OpenAiChatToolMessage,
  OpenAiNamespace,
  OpenAiOptions,
  OpenAiResponsesDeferredTool,
  OpenAiResponsesOutput,
  OpenAiResponsesOutputPart,
  OpenAiResponsesTool,
  OpenAiResponsesToolOutput,
  OpenAiToolSearch
} from "../../ToolFormat.js"
import { errorPrefix, note, type Part, parts, text } from "./content.js"
import { sanitizeName } from "./names.js"
import { strictSchema } from "./openAiStrict.js"
import { rootObject } from "./rootObject.js"
import { descriptionOf, split } from "./tool.js"

// --- tools -------------------------------------------------------------------

const parametersFor = (tool: McpSchema.Tool, options: OpenAiOptions | undefined) => {
  const strict = options?.strict === false ? undefined : strictSchema(tool.inputSchema)
  return strict === undefined
    ? { parameters: rootObject(tool.inputSchema), strict: false }
    : { parameters: strict, strict: true }
}

/** @internal */
export const chatTool = (input: Input, options?: OpenAiOptions): OpenAiChatTool => {
  const { name, tool } = split(input)
  const { parameters, strict } = parametersFor(tool, options)
  return {
    type: "function",
    function: { name, ...descriptionOf(tool), parameters, ...(strict ? { strict: true } : {}) }
  }
}

/** @internal */
export const responsesTool = (input: Input, options?: OpenAiOptions): OpenAiResponsesTool => {
  const { name, tool } = split(input)
  const { parameters, strict } = parametersFor(tool, options)
  return { type: "function", name, ...descriptionOf(tool), parameters, strict }
}

// --- Chat Completions results ------------------------------------------------

/** @internal */
export const chatContent = (result: McpSchema.CallToolResult): string =>
  (result.isError === true ? errorPrefix : "") + text(parts(result))

/** @internal */
export const chatResult = (toolCallId: string, result: McpSchema.CallToolResult): OpenAiChatToolMessage => ({
  role: "tool",
  tool_call_id: toolCallId,
  content: chatContent(result)
})

// --- Responses results -------------------------------------------------------

const isImage = (part: Part): part is Extract<Part, { _tag: "Media" }> => part._tag === "Media" && part.kind === "image"

/** @internal */
export const responsesOutput = (result: McpSchema.CallToolResult): OpenAiResponsesOutput => {
  const all = parts(result)
  const prefix = result.isError === true ? errorPrefix : ""
  if (!all.some(isImage)) return prefix + text(all)
  const out: Array<OpenAiResponsesOutputPart> = all.map((part) =>
    isImage(part)
      ? { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}` }
      : { type: "input_text", text: part._tag === "Text" ? part.text : note(part) }
  )
  return prefix === "" ? out : [{ type: "input_text", text: prefix.trim() }, ...out]
}

/** @internal */
export const responsesResult = (callId: string, result: McpSchema.CallToolResult): OpenAiResponsesToolOutput => ({
  type: "function_call_output",
  call_id: callId,
  output: responsesOutput(result)
})

// --- deferred loading --------------------------------------------------------

/** A namespace name per server: provider-safe, distinct (a `_2` suffix when two servers sanitise alike). */
const namespaceNames = (servers: ReadonlyArray<string>) => {
  const names = new Map<string, string>()
  const taken = new Set<string>()
  for (const server of servers) {
    const base = sanitizeName(server)
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 60)}_${n}`
    taken.add(name)
    names.set(server, name)
  }
  return names
}

/** @internal */
export const responsesDeferred = (
  inputs: ReadonlyArray<DeferredInput>,
  options?: DeferredOptions & { readonly strict?: boolean | undefined }
): Array<OpenAiToolSearch | OpenAiNamespace | OpenAiResponsesDeferredTool> => {
  const pinned = new Set(options?.pinned ?? [])
  const top: Array<OpenAiResponsesDeferredTool> = []
  const byServer = new Map<string, Array<OpenAiResponsesDeferredTool>>()
  for (const input of inputs) {
    const tool = responsesTool(input, options)
    if (pinned.has(input.name)) top.push(tool)
    else if (input.server === undefined) top.push({ ...tool, defer_loading: true })
    else {
      const list = byServer.get(input.server) ?? []
      list.push({ ...tool, defer_loading: true })
      byServer.set(input.server, list)
    }
  }
  const names = namespaceNames([...byServer.keys()])
  const namespaces = [...byServer].map(([server, tools]): OpenAiNamespace => ({
    type: "namespace",
    name: names.get(server)!,
    description: options?.descriptions?.get(server) ?? `Tools of the MCP server "${server}".`,
    tools
  }))
  return [{ type: "tool_search" }, ...top, ...namespaces]
}
