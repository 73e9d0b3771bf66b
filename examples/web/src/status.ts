/** A call's status as the console words it. */
import type { History, ToolCall } from "@mcp-effect/react"

export const statusLabel = (status: ToolCall.Status | History.Status): string =>
  status === "AwaitingApproval" ? "Awaiting approval" : status === "TimedOut" ? "Timed out" : status
