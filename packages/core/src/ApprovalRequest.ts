/**
 * What an `Approver` is asked: which server wants to run which tool with
 * which arguments, whether the server is trusted, and the warnings derived
 * from the tool's annotations.
 *
 * @since 0.2.0
 */
import type * as McpSchema from "./McpSchema.js"

/**
 * A warning to show before a call. `declared` tells whether the tool's
 * annotations said so or the spec's default applies (an unannotated tool is
 * assumed destructive and open-world). Annotations come from the server:
 * with an untrusted server they are shown, never relied on.
 *
 * @since 0.2.0
 * @category models
 */
export type Warning =
  | { readonly _tag: "Destructive"; readonly declared: boolean; readonly message: string }
  | { readonly _tag: "OpenWorld"; readonly declared: boolean; readonly message: string }

/**
 * @since 0.2.0
 * @category models
 */
export interface ApprovalRequest {
  /** The server's name: `McpClient.Options.server`, else the name it gave in `initialize`. */
  readonly server: string
  /** Whether the server is trusted (client option or policy). */
  readonly trusted: boolean
  /** The tool as listed (title, icons, annotations); a bare `{ name }` when the server does not list it. */
  readonly tool: McpSchema.Tool
  readonly arguments: { readonly [key: string]: unknown } | undefined
  readonly warnings: ReadonlyArray<Warning>
}

/**
 * The warnings for a tool, from `destructiveHint` (default `true`, unless
 * `readOnlyHint` is `true`) and `openWorldHint` (default `true`).
 * `readOnlyHint` itself adds no warning.
 *
 * @since 0.2.0
 * @category utils
 */
export const warnings = (tool: McpSchema.Tool): ReadonlyArray<Warning> => {
  const hints = tool.annotations ?? {}
  const result: Array<Warning> = []
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
 * Builds a request, deriving its warnings from the tool.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Omit<ApprovalRequest, "warnings">): ApprovalRequest => ({
  ...options,
  warnings: warnings(options.tool)
})
