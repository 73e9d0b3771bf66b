/**
 * What the registry lets through from its servers: tool names (`naming.ts`),
 * text neutralised and capped, pinned definitions (`pins.ts`) with
 * quarantine, and the warnings and events that explain what was held back.
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as ApprovalPolicy from "@mcp-effect/core/ApprovalPolicy"
import * as ApprovalRequest from "@mcp-effect/core/ApprovalRequest"
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as ServerRegistry from "../ServerRegistry.js"
import * as ToolPins from "../ToolPins.js"
import * as Naming from "./naming.js"
import * as Pins from "./pins.js"

/** Default cap of a tool description shown to a model, in characters. */
export const defaultMaxDescription = 4096

/** A server's tools next to their pins. */
export interface Checked {
  /** Tool name -> the fields that changed, for quarantined tools. */
  readonly quarantine: ReadonlyMap<string, ReadonlyArray<ToolPins.FieldChange>>
  readonly warnings: ReadonlyArray<ServerRegistry.ToolWarning>
}

/** What a connected server offers, as the registry keeps it. */
export interface Offered {
  readonly server: string
  readonly tools: ReadonlyArray<McpSchema.Tool>
  readonly checked: Checked
}

/** The registry's tool view. */
export interface View {
  /** Offered to the model. */
  readonly tools: ReadonlyArray<ServerRegistry.HubTool>
  /** Registry name -> the quarantined tool (named like the others, never offered). */
  readonly quarantined: ReadonlyMap<string, ToolPins.ToolQuarantined>
  readonly warnings: ReadonlyMap<string, ReadonlyArray<ServerRegistry.ToolWarning>>
}

export const noChecks: Checked = { quarantine: new Map(), warnings: [] }

const fieldList = (changes: ReadonlyArray<ToolPins.FieldChange>) => changes.map((c) => c.field).join(", ")

/** `pinning` as configured, else quarantine where the policy asks a person, warn where it does not. */
const modeOf = (
  configured: ToolPins.Mode | undefined,
  policy: Option.Option<ApprovalPolicy.Service>
): ToolPins.Mode =>
  configured ?? (Option.isSome(policy) && policy.value.options.mode !== "auto" ? "quarantine" : "warn")

/** The text of a tool as shown to a model: neutralised, its description capped. */
const present = (
  tool: McpSchema.Tool,
  maxDescription: number
): { readonly tool: McpSchema.Tool; readonly cut: boolean } => {
  const safe = ApprovalRequest.neutralizeTool(tool)
  if (safe.description === undefined || safe.description.length <= maxDescription) return { tool: safe, cut: false }
  const description = `${safe.description.slice(0, maxDescription)}… [cut at ${maxDescription} characters]`
  return { tool: { ...safe, description }, cut: true }
}

/** A server's `serverInfo` with its name, title, version and description neutralised (a status is shown to people). */
export const neutralizeInfo = (info: McpSchema.Implementation): McpSchema.Implementation => {
  const line = (text: string | undefined) => text === undefined ? undefined : ApprovalRequest.neutralize(text, "line")
  return {
    ...info,
    name: line(info.name)!,
    version: line(info.version)!,
    ...(info.title === undefined ? {} : { title: line(info.title)! }),
    ...(info.description === undefined ? {} : { description: ApprovalRequest.neutralize(info.description) })
  }
}

/** Names that look like identifiers (not plain words), so a description naming one is worth reporting. */
const distinctive = (name: string) => name.length >= 4 && /[_\-.]|[a-z][A-Z]/.test(name)

const tokens = /[A-Za-z0-9_.:/-]+/g

/** Per tool, the other servers' tools its description names (by registry name, or an identifier-like own name). */
const shadowing = (tools: ReadonlyArray<ServerRegistry.HubTool>) => {
  const byName = new Map<string, Set<string>>()
  const add = (name: string, hubTool: ServerRegistry.HubTool) => {
    const set = byName.get(name) ?? new Set<string>()
    set.add(`${hubTool.server}/${hubTool.tool.name}`)
    byName.set(name, set)
  }
  for (const tool of tools) {
    if (distinctive(tool.name)) add(tool.name, tool)
    if (distinctive(tool.tool.name)) add(tool.tool.name, tool)
    // the ways a description may spell "that server's tool"
    for (const separator of ["__", "/", ".", ":"]) add(`${tool.server}${separator}${tool.tool.name}`, tool)
  }
  const found: Array<{ readonly tool: ServerRegistry.HubTool; readonly mentions: ReadonlyArray<string> }> = []
  if (byName.size === 0) return found
  for (const tool of tools) {
    const mentions = new Set<string>()
    for (const match of (tool.tool.description ?? "").matchAll(tokens)) {
      const owners = byName.get(match[0].replace(/[.:/]+$/, ""))
      if (owners === undefined) continue
      for (const owner of owners) if (!owner.startsWith(`${tool.server}/`)) mentions.add(owner)
    }
    if (mentions.size > 0) found.push({ tool, mentions: [...mentions].sort() })
  }
  return found
}

/** @internal */
export const make = (options: ServerRegistry.Options): Effect.Effect<
  {
    readonly mode: ToolPins.Mode
    readonly events: Stream.Stream<ToolPins.Event>
    readonly check: (server: string, tools: ReadonlyArray<McpSchema.Tool>) => Effect.Effect<Checked>
    readonly approve: (server: string, tool: McpSchema.Tool) => Effect.Effect<void>
    readonly view: (servers: ReadonlyArray<Offered>) => Effect.Effect<View>
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const mode = modeOf(options.pinning, yield* Effect.serviceOption(ApprovalPolicy.ApprovalPolicy))
    const kv = yield* Effect.serviceOption(KeyValueStore.KeyValueStore)
    const store = Option.isSome(kv)
      ? kv.value
      : yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerMemory)
    const pins = Pins.make(store, options.pinPrefix ?? ToolPins.defaultPrefix)
    const namer = Naming.make(options.toolNames ?? "onCollision")
    const maxDescription = options.maxDescription ?? defaultMaxDescription
    // a slow listener drops old events rather than holding memory for a server that floods changes
    const hub = yield* PubSub.sliding<ToolPins.Event>(1024)
    yield* Effect.addFinalizer(() => PubSub.shutdown(hub))
    /** The shadowing of the last view, so a republish does not report it again (and it holds no more than that). */
    let reported = new Set<string>()

    const check = (server: string, tools: ReadonlyArray<McpSchema.Tool>): Effect.Effect<Checked> =>
      mode === "off" ? Effect.succeed(noChecks) : Effect.gen(function*() {
        const result = yield* pins.check(server, tools)
        const quarantine = mode === "quarantine"
          ? result.changed
          : new Map<string, ReadonlyArray<ToolPins.FieldChange>>()
        const events: Array<ToolPins.Event> = []
        const warnings: Array<ServerRegistry.ToolWarning> = []
        for (const [tool, changes] of result.changed) {
          events.push({ _tag: "DefinitionChanged", server, tool, changes, quarantined: quarantine.has(tool) })
          warnings.push({
            _tag: "DefinitionChanged",
            tool,
            message: `changed its ${fieldList(changes)} since it was first seen${
              quarantine.has(tool) ? "; quarantined until approved" : ""
            }`
          })
        }
        for (const { from, tool } of [...result.renamed].sort((a, b) => a.tool < b.tool ? -1 : 1)) {
          events.push({ _tag: "Renamed", server, tool, from })
          warnings.push({ _tag: "Renamed", tool, message: `has the definition first seen as ${from}` })
        }
        yield* PubSub.publishAll(hub, events)
        return { quarantine, warnings }
      })

    const view = (servers: ReadonlyArray<Offered>): Effect.Effect<View> =>
      Effect.suspend(() => {
        const named = namer.assign(servers)
        const byServer = new Map(servers.map((s) => [s.server, s] as const))
        const warnings = new Map<string, Array<ServerRegistry.ToolWarning>>()
        const warn = (server: string, warning: ServerRegistry.ToolWarning) => {
          const list = warnings.get(server) ?? []
          list.push(warning)
          warnings.set(server, list)
        }
        for (const s of servers) for (const w of s.checked.warnings) warn(s.server, w)
        for (const [server, names] of named.duplicates) {
          for (const tool of names) {
            warn(server, { _tag: "DuplicateTool", tool, message: "listed more than once; only the first is offered" })
          }
        }
        const tools: Array<ServerRegistry.HubTool> = []
        const quarantined = new Map<string, ToolPins.ToolQuarantined>()
        for (const hubTool of named.tools) {
          const changes = byServer.get(hubTool.server)?.checked.quarantine.get(hubTool.tool.name)
          if (changes !== undefined) {
            quarantined.set(
              hubTool.name,
              new ToolPins.ToolQuarantined({
                server: hubTool.server,
                tool: hubTool.tool.name,
                fields: changes.map((c) => c.field)
              })
            )
            continue
          }
          const shown = present(hubTool.tool, maxDescription)
          if (shown.cut) {
            warn(hubTool.server, {
              _tag: "DescriptionCut",
              tool: hubTool.tool.name,
              message: `description of ${hubTool.tool.description!.length} characters cut to ${maxDescription}`
            })
          }
          tools.push(shown.tool === hubTool.tool ? hubTool : { ...hubTool, tool: shown.tool })
        }
        const events: Array<ToolPins.Event> = []
        const current = new Set<string>()
        for (const { mentions, tool } of shadowing(tools)) {
          warn(tool.server, {
            _tag: "Shadowing",
            tool: tool.tool.name,
            message: `its description names ${mentions.join(", ")}`
          })
          const key = `${tool.server}\u0000${tool.tool.name}\u0000${mentions.join("\u0000")}`
          current.add(key)
          if (reported.has(key)) {
            continue
          }
          events.push({ _tag: "Shadowing", server: tool.server, tool: tool.tool.name, mentions })
        }
        reported = current
        return Effect.as(PubSub.publishAll(hub, events), { tools, quarantined, warnings })
      })

    return {
      mode,
      events: Stream.fromPubSub(hub),
      check,
      approve: (server, tool) => mode === "off" ? Effect.void : pins.pin(server, tool),
      view
    }
  })
