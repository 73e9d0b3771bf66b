/**
 * The call history: every tool call made through a client that has core's
 * `ToolCallLog` in its context (`BrowserHub.layer` provides one), with its
 * status, arguments, progress, task, result or error, updated live.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import * as React from "react"
import { useSubscribable } from "./Live.js"
import { useService, valueOf } from "./RuntimeProvider.js"

const none: ReadonlyArray<never> = []

/**
 * The recorded calls, oldest first (up to the log's retention), and `clear`
 * to empty the log.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useToolCallLog = (): {
  readonly records: ReadonlyArray<ToolCallLog.ToolCallRecord>
  readonly clear: () => void
} => {
  const runtimeLog = valueOf(useService(ToolCallLog.ToolCallLog))
  const records = useSubscribable(runtimeLog?.records, none)
  const clear = React.useCallback(() => {
    if (runtimeLog !== undefined) void Effect.runPromise(runtimeLog.clear)
  }, [runtimeLog])
  return { records, clear }
}
