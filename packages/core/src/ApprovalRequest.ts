/**
 * What an `Approver` is asked: which server wants to run which tool with
 * which arguments, whether the server is trusted, the warnings derived
 * from the tool's annotations, and, when an MCP App's UI made the call, its
 * `origin`.
 *
 * Text in a request that came from a server (its name, the tool's title and
 * description) is neutralised: no control characters, ANSI escapes,
 * carriage returns, bidi overrides or invisible characters, so a title
 * cannot rewrite the prompt line a terminal approver prints.
 *
 * @since 0.2.0
 */
import * as Neutralize from "./internal/wire/neutralize.js"
import type * as McpSchema from "./McpSchema.js"
import type * as ToolCallLog from "./ToolCallLog.js"

/**
 * A warning to show before a call. `declared` tells whether the tool's
 * annotations said so or the spec's default applies (an unannotated tool is
 * assumed destructive and open-world). Annotations come from the server:
 * with an untrusted server they are shown, never relied on, and every
 * request carries an `UntrustedServer` warning saying so (a tool of an
 * untrusted server that calls itself read-only still has a warning: an
 * approver that approves requests without warnings never lets a server
 * approve itself).
 *
 * @since 0.2.0
 * @category models
 */
export type Warning =
  | { readonly _tag: "Destructive"; readonly declared: boolean; readonly message: string }
  | { readonly _tag: "OpenWorld"; readonly declared: boolean; readonly message: string }
  | {
    readonly _tag: "UntrustedServer"
    /** Whether the tool has annotations (claims about itself) at all. */
    readonly declared: boolean
    readonly message: string
  }

/**
 * @since 0.2.0
 * @category models
 */
export interface ApprovalRequest {
  /** The server's name: `McpClient.Options.server`, else the name it gave in `initialize`. */
  readonly server: string
  /** Whether the server is trusted (client option or policy). */
  readonly trusted: boolean
  /**
   * The tool as listed (title, icons, annotations), its title and
   * description neutralised for display; a bare `{ name }` when the server
   * does not list it.
   */
  readonly tool: McpSchema.Tool
  /**
   * The tool exactly as the server listed it, when `make` neutralised text
   * in `tool`: what an "approve always" decision is bound to.
   */
  readonly listed?: McpSchema.Tool | undefined
  readonly arguments: { readonly [key: string]: unknown } | undefined
  readonly warnings: ReadonlyArray<Warning>
  /**
   * Who asked for the call when it was not the host itself: the MCP App
   * (its `ui://` resource, neutralised for display) whose UI made it, read
   * from `ToolCallLog.currentOrigin` of the calling fiber. Absent for the
   * host's and the model's own calls.
   */
  readonly origin?: ToolCallLog.Origin | undefined
  /**
   * The origin exactly as the call carried it, when `make` neutralised its
   * URI: what an "approve always" decision is bound to, so two URIs that
   * read the same once neutralised stay two apps.
   *
   * @since 0.5.0
   */
  readonly exactOrigin?: ToolCallLog.Origin | undefined
}

/**
 * The warnings for a tool, from `destructiveHint` (default `true`, unless
 * `readOnlyHint` is `true`) and `openWorldHint` (default `true`).
 * `readOnlyHint` itself adds no warning. With `trusted: false`, an
 * `UntrustedServer` warning comes first, whatever the annotations claim.
 *
 * @since 0.2.0
 * @category utils
 */
export const warnings = (tool: McpSchema.Tool, trusted = true): ReadonlyArray<Warning> => {
  const hints = tool.annotations ?? {}
  const result: Array<Warning> = []
  if (!trusted) {
    const declared = tool.annotations !== undefined && Object.keys(tool.annotations).length > 0
    result.push({
      _tag: "UntrustedServer",
      declared,
      message: `the server is not trusted${declared ? ": what the tool says about itself is its own claim" : ""}`
    })
  }
  if (hints.readOnlyHint !== true && hints.destructiveHint !== false) {
    result.push({
      _tag: "Destructive",
      declared: hints.destructiveHint === true,
      message: hints.destructiveHint === true ?
        "may delete or overwrite data" :
        "may change data (the tool does not say it is read-only or non-destructive)"
    })
  }
  if (hints.openWorldHint !== false) {
    result.push({
      _tag: "OpenWorld",
      declared: hints.openWorldHint === true,
      message: hints.openWorldHint === true ?
        "interacts with systems outside this app" :
        "may interact with systems outside this app (the tool does not say otherwise)"
    })
  }
  return result
}

/**
 * Builds a request, deriving its warnings from the tool and whether the
 * server is trusted, with the server's name and the tool's title and
 * description neutralised (`listed` keeps the tool as listed), and the
 * `origin`'s URI neutralised (it comes from the server's tool listing;
 * `exactOrigin` keeps it as the call carried it).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Omit<ApprovalRequest, "warnings" | "listed" | "exactOrigin">): ApprovalRequest => {
  const tool = neutralizeTool(options.tool)
  const { origin, ...rest } = options
  const shown = origin === undefined ? undefined : { ...origin, uri: neutralize(origin.uri, "line") }
  return {
    ...rest,
    server: neutralize(options.server, "line"),
    tool,
    ...(shown === undefined ? {} : { origin: shown }),
    ...(origin === undefined || shown?.uri === origin.uri ? {} : { exactOrigin: origin }),
    ...(tool === options.tool ? {} : { listed: options.tool }),
    warnings: warnings(options.tool, options.trusted)
  }
}

/**
 * Text from a server made safe to show to a person or a model: ANSI escape
 * sequences, control characters, bidi controls and invisible characters are
 * removed; CR LF and lone CR become LF. With `"line"`, line breaks and tabs
 * become spaces too (a server name, a title).
 *
 * @since 0.2.0
 * @category utils
 */
export const neutralize: (text: string, mode?: "line" | "text") => string = Neutralize.neutralize

/**
 * The tool with its title and description (and `annotations.title`)
 * neutralised; the same object when there was nothing to change.
 *
 * @since 0.2.0
 * @category utils
 */
export const neutralizeTool = (tool: McpSchema.Tool): McpSchema.Tool => {
  const { annotations, description, title } = tool
  const safe: McpSchema.Tool = {
    ...tool,
    ...(title === undefined ? {} : { title: neutralize(title, "line") }),
    ...(description === undefined ? {} : { description: neutralize(description) }),
    ...(annotations?.title === undefined
      ? {}
      : { annotations: { ...annotations, title: neutralize(annotations.title, "line") } })
  }
  return safe.title === title && safe.description === description && safe.annotations?.title === annotations?.title
    ? tool
    : safe
}

/** JSON with sorted keys: equal values give equal strings. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0
    )
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/**
 * The parts of a tool's definition that say what it does (title,
 * description, input and output schemas, annotations) as canonical JSON
 * (sorted keys): what an "approve always" decision and a pinned tool are
 * bound to. Equal definitions give equal strings.
 *
 * @since 0.2.0
 * @category utils
 */
export const definitionOf = (tool: McpSchema.Tool): string =>
  canonical({
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations
  })
