/**
 * The call history: every tool call made through a client that has core's
 * `ToolCallLog` in its context (`BrowserHub.layer` provides one), with its
 * status, arguments, progress, task, result or error, updated live.
 *
 * A stored record still `Running` (or `AwaitingApproval`) when the page
 * loads belongs to a call an earlier page left behind (a reload, a closed
 * tab): nothing will end it, and its outcome is unknown. `statusOf` shows it
 * as `Interrupted`.
 *
 * @since 0.2.0
 */
import type * as McpSchema from "@mcp-effect/core/McpSchema"
import * as ToolCallLog from "@mcp-effect/core/ToolCallLog"
import * as Effect from "effect/Effect"
import * as React from "react"
import { useSubscribable } from "./Live.js"
import { useService, valueOf } from "./RuntimeProvider.js"

const none: ReadonlyArray<never> = []

/**
 * What a history row shows: the record's status, or `Interrupted` for a call
 * an earlier page left unfinished.
 *
 * @since 0.2.0
 * @category models
 */
export type Status = ToolCallLog.Status | "Interrupted"

// per log (one per runtime): the unfinished records it held when this page first read it
const leftBehind = new WeakMap<ToolCallLog.Service, ReadonlySet<string>>()

const leftBehindBy = (log: ToolCallLog.Service): ReadonlySet<string> => {
  let ids = leftBehind.get(log)
  if (ids === undefined) {
    const records = Effect.runSync(log.records.get)
    ids = new Set(records.filter((r) => !ToolCallLog.isFinal(r.status)).map((r) => r.id))
    leftBehind.set(log, ids)
  }
  return ids
}

/**
 * The recorded calls, oldest first (up to the log's retention), `clear` to
 * empty the log, and `statusOf(record)`: the status to show, `Interrupted`
 * for a record an earlier page left unfinished.
 *
 * @since 0.2.0
 * @category hooks
 */
export const useToolCallLog = (): {
  readonly records: ReadonlyArray<ToolCallLog.ToolCallRecord>
  readonly clear: () => void
  readonly statusOf: (record: ToolCallLog.ToolCallRecord) => Status
} => {
  const runtimeLog = valueOf(useService(ToolCallLog.ToolCallLog))
  const records = useSubscribable(runtimeLog?.records, none)
  const clear = React.useCallback(() => {
    if (runtimeLog !== undefined) void Effect.runPromise(runtimeLog.clear)
  }, [runtimeLog])
  const statusOf = React.useCallback((record: ToolCallLog.ToolCallRecord): Status => {
    if (runtimeLog === undefined || ToolCallLog.isFinal(record.status)) return record.status
    return leftBehindBy(runtimeLog).has(record.id) ? "Interrupted" : record.status
  }, [runtimeLog])
  // take the snapshot as soon as the log is there, before this page starts calls of its own
  if (runtimeLog !== undefined) leftBehindBy(runtimeLog)
  return { records, clear, statusOf }
}

/**
 * The task status to show for a record: the last one the call saw, or, once
 * the call has ended while the task still looked active (`working`,
 * `input_required`), the status that follows from the call's outcome.
 *
 * @since 0.2.0
 * @category utils
 */
export const taskStatusOf = (record: ToolCallLog.ToolCallRecord): McpSchema.Task["status"] | undefined => {
  const last = record.taskStatus
  if (last === undefined || !ToolCallLog.isFinal(record.status)) return last
  if (last === "completed" || last === "failed" || last === "cancelled") return last
  return record.status === "Completed" ? "completed" : record.status === "Cancelled" ? "cancelled" : "failed"
}
