/**
 * The models of a tool call that the client's parts share: its options, the
 * events of a streamed call, the shape of `callTool` / `callToolStream`,
 * and a tool the list left out. They live below the client so that the tool
 * call and task paths name them without importing `McpClient`, which
 * assembles the client; the public module re-exports each under its own name.
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type * as ClientSession from "../../ClientSession.js"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"

/** @internal */
export interface CallToolOptions extends Omit<ClientSession.RequestOptions, "replay" | "toolName" | "onProgress"> {
  /** Called for each progress notification of the call. */
  readonly onProgress?: ((progress: McpSchema.ProgressNotificationParams) => Effect.Effect<void>) | undefined
  /**
   * Run the call as a task: `true`, or the task metadata to send. Calls of
   * tools whose `execution.taskSupport` is `"required"` always run as tasks.
   */
  readonly task?: boolean | McpSchema.TaskMetadata | undefined
}

/**
 * What a streamed tool call emits: progress and task updates while it runs,
 * then exactly one `Result`.
 *
 * @internal
 */
export type CallToolEvent =
  | { readonly _tag: "Progress"; readonly progress: McpSchema.ProgressNotificationParams }
  | { readonly _tag: "TaskStatus"; readonly task: McpSchema.Task }
  | { readonly _tag: "Result"; readonly result: McpSchema.CallToolResult }

/**
 * A tool of `tools/list` that did not decode: its name (absent when it has
 * none that is a string, at most 128 characters) and the decode error.
 *
 * @internal
 */
export interface DroppedTool {
  readonly name: string | undefined
  readonly message: string
}

/**
 * Calls a tool and returns its result (`McpClient.Service["callTool"]`).
 *
 * @internal
 */
export type CallTool = (
  params: McpSchema.CallToolRequestParams,
  options?: CallToolOptions
) => Effect.Effect<McpSchema.CallToolResult, McpError.McpClientError>

/**
 * Calls a tool and streams its events (`McpClient.Service["callToolStream"]`).
 *
 * @internal
 */
export type CallToolStream = (
  params: McpSchema.CallToolRequestParams,
  options?: Omit<CallToolOptions, "onProgress">
) => Stream.Stream<CallToolEvent, McpError.McpClientError>
