/**
 * Every tool declared with the provider's own deferred loading: Anthropic's
 * tool search tool and `defer_loading`, OpenAI Responses' `tool_search` with
 * one namespace per server.
 */
import type {
  AnthropicDeferredTool,
  AnthropicToolSearchTool,
  DeferredInput,
  DeferredOptions,
  OpenAiNamespace,
  OpenAiResponsesDeferredTool,
  OpenAiToolSearch
} from "../../ToolFormat.js"
import { sanitizeName } from "./names.js"
import { anthropic, openAiResponses } from "./tools.js"

/** @internal */
export const anthropicDeferred = (
  inputs: ReadonlyArray<DeferredInput>,
  options?: DeferredOptions & { readonly variant?: "bm25" | "regex" | undefined }
): Array<AnthropicToolSearchTool | AnthropicDeferredTool> => {
  const pinned = new Set(options?.pinned ?? [])
  const search: AnthropicToolSearchTool = options?.variant === "regex"
    ? { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }
    : { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }
  return [
    search,
    ...inputs.map((input): AnthropicDeferredTool => {
      const tool = anthropic(input)
      return pinned.has(input.name) ? tool : { ...tool, defer_loading: true }
    })
  ]
}

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
export const openAiResponsesDeferred = (
  inputs: ReadonlyArray<DeferredInput>,
  options?: DeferredOptions & { readonly strict?: boolean | undefined }
): Array<OpenAiToolSearch | OpenAiNamespace | OpenAiResponsesDeferredTool> => {
  const pinned = new Set(options?.pinned ?? [])
  const top: Array<OpenAiResponsesDeferredTool> = []
  const byServer = new Map<string, Array<OpenAiResponsesDeferredTool>>()
  for (const input of inputs) {
    const tool = openAiResponses(input, options)
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
