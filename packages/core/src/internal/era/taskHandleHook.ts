// What the client hands the 2026 task handles of a call (`taskHandles.ts`) through a FiberRef, as
// `Continuations` hooks the input rounds: each state of the task, and how an interrupted call sends
// `tasks/cancel`. A module of its own, so that the era files hold no store code, and a client
// without a `SharedStore`, `ToolCallLog` or event stream sets none of it.
import type * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type * as McpError from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"

/**
 * Set around a tool call (or a resumed task) whose task handle is followed.
 *
 * @internal
 */
export interface Hook {
  /** Each state of the task, in order: the handle, then every `tasks/get` answer. */
  readonly status: (task: McpSchema.Task) => Effect.Effect<void>
  /** How an interrupted call cancels its task, given the plain `tasks/cancel` request. */
  readonly cancel: (
    taskId: string,
    send: Effect.Effect<unknown, McpError.McpClientError>
  ) => Effect.Effect<unknown, McpError.McpClientError>
}

/** @internal */
export const current = FiberRef.unsafeMake<Hook | undefined>(undefined)
