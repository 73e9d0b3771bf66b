import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as ApprovalRequest from "@mcp-effect/core/ApprovalRequest"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as ToolPins from "../ToolPins.js"
import { sha256Hex } from "./sha256.js"

const Pin = Schema.Struct({
  /** `ApprovalRequest.definitionOf` the tool, as first accepted. */
  definition: Schema.String,
  pinnedAt: Schema.Number
})

const fields: ReadonlyArray<ToolPins.Field> = ["title", "description", "inputSchema", "outputSchema", "annotations"]

/** What a server's listed tools are next to their pins. */
export interface Checked {
  /** Per tool whose definition differs from its pin, the fields that differ. */
  readonly changed: ReadonlyMap<string, ReadonlyArray<ToolPins.FieldChange>>
  /** Tools first seen now whose definition was pinned under another name no longer listed. */
  readonly renamed: ReadonlyArray<{ readonly tool: string; readonly from: string }>
}

/** The pins of a registry, in a `KeyValueStore` (one record per tool, and one per definition for renames). */
export interface Pins {
  /** Pins every tool seen for the first time; reports the others that changed. */
  readonly check: (server: string, tools: ReadonlyArray<McpSchema.Tool>) => Effect.Effect<Checked>
  /** Pins the tool's current definition (a re-approval). */
  readonly pin: (server: string, tool: McpSchema.Tool) => Effect.Effect<void>
}

/** The fields whose canonical JSON differs. */
export const diff = (pinned: string, tool: McpSchema.Tool): ReadonlyArray<ToolPins.FieldChange> => {
  const before = JSON.parse(pinned) as Partial<Record<ToolPins.Field, unknown>>
  const after = JSON.parse(ApprovalRequest.definitionOf(tool)) as Partial<Record<ToolPins.Field, unknown>>
  return fields.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field])).map((field) => ({
    field,
    pinned: before[field],
    listed: after[field]
  }))
}

const warn = (message: string) => (error: { readonly message: string }) =>
  Effect.as(Effect.logWarning(`mcp: ${message}`, error.message), Option.none())

/** Pins in `kv` (or in memory when there is none) under `prefix`. */
export const make = (kv: KeyValueStore.KeyValueStore, prefix: string): Pins => {
  const pins = kv.forSchema(Pin)
  const serverKey = (server: string) => `${prefix}${encodeURIComponent(server)}/`
  const toolKey = (server: string, tool: string) => `${serverKey(server)}tools/${encodeURIComponent(tool)}`
  // by a hash: the key stays short whatever the definition
  const definitionKey = (server: string, definition: string) =>
    `${serverKey(server)}definitions/${sha256Hex(definition)}`

  const pin = (server: string, tool: McpSchema.Tool) =>
    Effect.gen(function*() {
      const definition = ApprovalRequest.definitionOf(tool)
      const pinnedAt = yield* Clock.currentTimeMillis
      yield* pins.set(toolKey(server, tool.name), { definition, pinnedAt })
      yield* kv.set(definitionKey(server, definition), tool.name)
    }).pipe(Effect.catchAll((error) => Effect.logWarning("mcp: could not pin a tool definition", error.message)))

  const check = (server: string, tools: ReadonlyArray<McpSchema.Tool>) =>
    Effect.gen(function*() {
      const listed = new Set(tools.map((tool) => tool.name))
      // the first of each name, as the registry offers them
      const first = [...new Map([...tools].reverse().map((tool) => [tool.name, tool] as const)).values()]
      const changed = new Map<string, ReadonlyArray<ToolPins.FieldChange>>()
      const renamed: Array<{ readonly tool: string; readonly from: string }> = []
      yield* Effect.forEach(first, (tool) =>
        Effect.gen(function*() {
          const pinned = yield* pins.get(toolKey(server, tool.name)).pipe(
            Effect.catchAll(warn("could not read a pinned tool definition"))
          )
          if (Option.isSome(pinned)) {
            if (pinned.value.definition === ApprovalRequest.definitionOf(tool)) return
            const changes = diff(pinned.value.definition, tool)
            if (changes.length > 0) changed.set(tool.name, changes)
            return
          }
          const from = yield* kv.get(definitionKey(server, ApprovalRequest.definitionOf(tool))).pipe(
            Effect.catchAll(warn("could not read a pinned tool definition"))
          )
          if (Option.isSome(from) && from.value !== tool.name && !listed.has(from.value)) {
            renamed.push({ tool: tool.name, from: from.value })
          }
          yield* pin(server, tool)
        }), { concurrency: 8, discard: true })
      return { changed, renamed }
    })

  return { check, pin }
}
