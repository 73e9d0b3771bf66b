/**
 * Pinned tool definitions: trust on first use for every tool of every
 * server in a `ServerRegistry`.
 *
 * The first definition the registry sees of a tool (title, description,
 * input and output schemas, annotations) is pinned in the `KeyValueStore`
 * (so processes sharing a store, on Redis for example, share the pins).
 * When the server later lists a different definition under that name (a
 * "rug pull"), the registry reports a `DefinitionChanged` event with a
 * field-by-field diff and, with `pinning: "quarantine"`, quarantines the
 * tool: it is left out of `tools` (so out of `ToolFormat` and `McpToolkit`
 * outputs built from them), and `callTool` refuses it with
 * `ToolQuarantined` without sending anything, until `approveDefinition`
 * pins the new definition.
 *
 * Also reported (never quarantined): a tool that appears under a new name
 * with a definition pinned under another name of the same server
 * (`Renamed`), and a tool whose description names another server's tool
 * (`Shadowing`: a description telling the model how to use someone else's
 * tools is a known way to hijack them).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * `"off"`: nothing is pinned. `"warn"`: changes are reported, the tool stays
 * offered. `"quarantine"`: a changed tool is hidden and refused until
 * re-approved.
 *
 * @since 0.2.0
 * @category models
 */
export type Mode = "off" | "warn" | "quarantine"

/**
 * The fields of a definition that are pinned.
 *
 * @since 0.2.0
 * @category models
 */
export type Field = "title" | "description" | "inputSchema" | "outputSchema" | "annotations"

/**
 * One field that differs from the pinned definition (`undefined`: absent).
 *
 * @since 0.2.0
 * @category models
 */
export interface FieldChange {
  readonly field: Field
  readonly pinned: unknown
  readonly listed: unknown
}

/**
 * What pinning noticed about a server's tools.
 *
 * @since 0.2.0
 * @category models
 */
export type Event =
  | {
    readonly _tag: "DefinitionChanged"
    readonly server: string
    /** The tool's name on its server. */
    readonly tool: string
    readonly changes: ReadonlyArray<FieldChange>
    /** Whether the tool is hidden and refused until `approveDefinition`. */
    readonly quarantined: boolean
  }
  | {
    readonly _tag: "Renamed"
    readonly server: string
    readonly tool: string
    /** The name the same definition was pinned under. */
    readonly from: string
  }
  | {
    readonly _tag: "Shadowing"
    readonly server: string
    readonly tool: string
    /** The other servers' tools its description names, as `<server>/<tool>`. */
    readonly mentions: ReadonlyArray<string>
  }

/**
 * A call refused because the tool's definition changed since it was pinned;
 * nothing was sent to the server.
 *
 * @since 0.2.0
 * @category errors
 */
export class ToolQuarantined extends Schema.TaggedError<ToolQuarantined>("@mcp-effect/hub/ToolQuarantined")(
  "ToolQuarantined",
  {
    server: Schema.String,
    /** The tool's name on its server. */
    tool: Schema.String,
    /** The fields that changed. */
    fields: Schema.Array(Schema.String)
  }
) {
  override get message(): string {
    return `tool ${this.tool} of ${this.server} changed its ${this.fields.join(", ")} since it was approved; ` +
      "it is quarantined until its new definition is approved"
  }
}

/**
 * The key prefix of pinned definitions in the `KeyValueStore`.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultPrefix = "mcp-effect/pins/"
