import type * as McpSchema from "@mcp-effect/core/McpSchema"
import type * as ServerRegistry from "../ServerRegistry.js"
import { sha256Hex } from "./sha256.js"

/** The longest name every LLM provider accepts for a function (OpenAI, Anthropic, Gemini). */
export const MAX_NAME = 64

/** The longest server prefix (before `__`), so a prefixed name keeps room for the tool. */
export const MAX_PREFIX = 24

/** Hex digits of SHA-256 in a disambiguated tool name (48 bits). */
const TOOL_HASH = 12

/** Hex digits of SHA-256 in a disambiguated server prefix (32 bits; prefixes are also checked for uniqueness). */
const PREFIX_HASH = 8

/**
 * Names a server's tools no longer listed keep reserved, at most (beyond
 * the ones it lists): a server inventing new tool names forever cannot grow
 * the namer without bound; only its own oldest unlisted names are released.
 */
export const MAX_RESERVED = 10_000

const unsafe = /[^a-zA-Z0-9_-]/g

/** Replaces every character outside `[a-zA-Z0-9_-]` by `_`; an empty result becomes `tool`. */
export const sanitize = (text: string): string => text.replace(unsafe, "_") || "tool"

/** The first `digits` hex digits of SHA-256 over the parts (NUL-separated, so no two part lists read alike). */
export const hash = (digits: number, ...parts: ReadonlyArray<string | number>): string =>
  sha256Hex(parts.join("\u0000")).slice(0, digits)

/**
 * A server's name as a prefix: safe characters, no `__` inside and no `_` at
 * either end, so in `<prefix>__<tool>` the first `__` always ends the prefix
 * and a name says unambiguously which server it claims.
 */
export const basePrefix = (server: string): string => {
  const compact = sanitize(server).replace(/_+/g, "_").replace(/^_|_$/g, "") || "server"
  return compact.length <= MAX_PREFIX
    ? compact
    : clean(`${compact.slice(0, MAX_PREFIX - PREFIX_HASH - 1)}_${hash(PREFIX_HASH, "prefix", server)}`)
}

const clean = (prefix: string) => prefix.replace(/_+/g, "_").replace(/^_|_$/g, "")

/** A tool of a server as the namer sees it. */
export interface ServerTools {
  readonly server: string
  readonly tools: ReadonlyArray<McpSchema.Tool>
}

/** What one naming round produced. */
export interface Named {
  /** Every tool of the servers given, under a name unique in the registry. */
  readonly tools: ReadonlyArray<ServerRegistry.HubTool>
  /** Per server, the tool names it listed more than once (only the first of each was named). */
  readonly duplicates: ReadonlyMap<string, ReadonlyArray<string>>
}

/**
 * Names the tools of every server, keeping what it named before: a namer
 * lives as long as its registry.
 *
 * Guarantees, whatever servers and tool names come in:
 *
 * - **unique**: two tools never share a registry name (a name is owned by
 *   one server's tool, checked on every assignment, never inferred from a hash);
 * - **no look-alike prefixes**: a name with `__` in it is always
 *   `<prefix>__<tool>` where the prefix is the server's own (a prefix has no
 *   `__` in it and belongs to one server); a tool name containing `__` is
 *   therefore never used unprefixed;
 * - **stable**: a tool keeps its name for as long as the registry runs
 *   (through disconnections, and whatever other servers come and go), and a
 *   name, once given, never goes to another server's tool (a server that
 *   churns through more than `MAX_RESERVED` names it no longer lists has its
 *   own oldest ones released).
 *
 * Names: a tool's own name made safe when `prefix` is `"onCollision"` and no
 * other server connected in the same round (or before) lists the same safe
 * name; otherwise `<prefix>__<tool>`. A name over 64 characters, or one
 * already owned by another tool, is shortened and ends in `_` plus 12 hex
 * digits of SHA-256 over the server and tool names.
 */
export const make = (prefix: "onCollision" | "always") => {
  /** registry name -> the identity (server NUL tool) that owns it, for the registry's lifetime */
  const owners = new Map<string, string>()
  /** identity -> its registry name */
  const names = new Map<string, string>()
  /** server prefix -> the server that owns it */
  const prefixOwners = new Map<string, string>()
  const prefixes = new Map<string, string>()
  /** per server, its identities with a name, oldest first */
  const reserved = new Map<string, Set<string>>()

  /** Releases a server's oldest names beyond `MAX_RESERVED` that it does not list now. */
  const release = (server: string, listed: ReadonlySet<string>) => {
    const mine = reserved.get(server)
    if (mine === undefined || mine.size <= MAX_RESERVED + listed.size) return
    for (const identity of mine) {
      if (mine.size <= MAX_RESERVED + listed.size) break
      if (listed.has(identity)) continue
      owners.delete(names.get(identity)!)
      names.delete(identity)
      mine.delete(identity)
    }
  }

  const prefixOf = (server: string): string => {
    const known = prefixes.get(server)
    if (known !== undefined) return known
    const base = basePrefix(server)
    let candidate = base
    for (let attempt = 0; prefixOwners.has(candidate) && prefixOwners.get(candidate) !== server; attempt++) {
      candidate = clean(
        `${base.slice(0, MAX_PREFIX - PREFIX_HASH - 1)}_${hash(PREFIX_HASH, "prefix", server, attempt)}`
      )
    }
    prefixOwners.set(candidate, server)
    prefixes.set(server, candidate)
    return candidate
  }

  const assign = (servers: ReadonlyArray<ServerTools>): Named => {
    const duplicates = new Map<string, Array<string>>()
    // each server's tools, first of each name only
    const lists = servers.map(({ server, tools }) => {
      const seen = new Set<string>()
      const kept: Array<McpSchema.Tool> = []
      for (const tool of tools) {
        if (seen.has(tool.name)) {
          const list = duplicates.get(server) ?? []
          if (!list.includes(tool.name)) list.push(tool.name)
          duplicates.set(server, list)
          continue
        }
        seen.add(tool.name)
        kept.push(tool)
      }
      return { server, tools: kept }
    })
    // which servers want each safe name unprefixed
    const wanted = new Map<string, Set<string>>()
    for (const { server, tools } of lists) {
      for (const tool of tools) {
        const base = sanitize(tool.name)
        const set = wanted.get(base) ?? new Set<string>()
        set.add(server)
        wanted.set(base, set)
      }
    }
    const result = new Map<string, string>()
    const fresh: Array<{ readonly server: string; readonly tool: McpSchema.Tool; readonly identity: string }> = []
    for (const { server, tools } of lists) {
      for (const tool of tools) {
        const identity = `${server}\u0000${tool.name}`
        const kept = names.get(identity)
        if (kept === undefined) fresh.push({ server, tool, identity })
        else result.set(identity, kept)
      }
    }
    const free = (name: string, identity: string) => {
      const owner = owners.get(name)
      return owner === undefined || owner === identity
    }
    for (const { identity, server, tool } of fresh) {
      const base = sanitize(tool.name)
      const plain = prefix === "onCollision" && base.length <= MAX_NAME && !base.includes("__") &&
        wanted.get(base)!.size === 1 && free(base, identity)
      let name = plain ? base : `${prefixOf(server)}__${base}`
      for (let attempt = 0; name.length > MAX_NAME || !free(name, identity); attempt++) {
        const head = `${prefixOf(server)}__${base}`.slice(0, MAX_NAME - TOOL_HASH - 1)
        name = `${head}_${hash(TOOL_HASH, "tool", server, tool.name, attempt)}`
      }
      owners.set(name, identity)
      names.set(identity, name)
      result.set(identity, name)
      const mine = reserved.get(server) ?? new Set<string>()
      mine.add(identity)
      reserved.set(server, mine)
    }
    for (const { server, tools } of lists) release(server, new Set(tools.map((tool) => `${server}\u0000${tool.name}`)))
    return {
      tools: lists.flatMap(({ server, tools }) =>
        tools.map((tool) => ({ name: result.get(`${server}\u0000${tool.name}`)!, server, tool }))
      ),
      duplicates
    }
  }

  return { assign, prefixOf }
}
