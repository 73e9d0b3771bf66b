import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as ServerRegistry from "../ServerRegistry.js"

/** The longest name every LLM provider accepts for a function (OpenAI, Anthropic, Gemini). */
export const MAX_NAME = 64

const unsafe = /[^a-zA-Z0-9_-]/g

/** Replaces every character outside `[a-zA-Z0-9_-]` by `_`; an empty result becomes `tool`. */
export const sanitize = (text: string): string => text.replace(unsafe, "_") || "tool"

/** FNV-1a (32 bits) as 8 hex digits: stable across runs and platforms. */
export const hash8 = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

/** `name` if it fits, else its first 55 characters, `_` and a hash of `identity`. */
const fit = (name: string, identity: string): string =>
  name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME - 9)}_${hash8(identity)}`

const withHash = (name: string, identity: string): string => `${name.slice(0, MAX_NAME - 9)}_${hash8(identity)}`

/**
 * Names every tool of every server, deterministically (the result depends
 * only on the servers' names and tool names, never on the order they
 * connected in):
 *
 * 1. the tool's name with unsafe characters replaced by `_`, when no other
 *    tool (of any server) has the same safe name and `prefix` is `"onCollision"`;
 * 2. otherwise `<server>__<tool>` (both made safe);
 * 3. a name over 64 characters keeps its first 55 and gets `_<hash>`;
 * 4. names still equal after that (servers whose names differ only in unsafe
 *    characters) all get `_<hash of server and tool>`.
 */
export const assign = (
  servers: ReadonlyArray<{ readonly server: string; readonly tools: ReadonlyArray<McpSchema.Tool> }>,
  prefix: "onCollision" | "always"
): ReadonlyArray<ServerRegistry.HubTool> => {
  const counts = new Map<string, number>()
  for (const { tools } of servers) {
    for (const tool of tools) {
      const base = sanitize(tool.name)
      counts.set(base, (counts.get(base) ?? 0) + 1)
    }
  }
  const named = servers.flatMap(({ server, tools }) =>
    tools.map((tool) => {
      const base = sanitize(tool.name)
      const identity = `${server}\u0000${tool.name}`
      const plain = prefix === "onCollision" && counts.get(base) === 1
      return { name: fit(plain ? base : `${sanitize(server)}__${base}`, identity), server, tool, identity }
    })
  )
  const uses = new Map<string, number>()
  for (const { name } of named) uses.set(name, (uses.get(name) ?? 0) + 1)
  return named.map(({ identity, name, server, tool }) => ({
    name: uses.get(name)! > 1 ? withHash(name, identity) : name,
    server,
    tool
  }))
}
