import { ToolCallLog } from "@mcp-effect/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

export const showCalls = Effect.gen(function*() {
  const log = yield* ToolCallLog.ToolCallLog
  yield* log.records.changes.pipe(
    Stream.map((records) => records.filter((r) => r.status === "AwaitingApproval" || r.status === "Running")),
    Stream.runForEach((active) => Console.log(`${active.length} calls in progress`))
  )
})
