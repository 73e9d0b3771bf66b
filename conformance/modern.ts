/**
 * Scenarios of protocol 2026-07-28 that exercise the era itself: the
 * per-request `_meta` and the retry after `-32022` (`request-metadata`,
 * SEP-2575), and multi-round-trip requests (`sep-2322-client-request-state`,
 * SEP-2322). The client negotiates the era on its own (`server/discover`
 * first); these programs use it the way an app does. `tools_call` runs
 * unchanged against the modern mock server: the same program, another era.
 */
import { Elicitation, McpClient } from "@mcp-effect/core"
import type { McpSchema } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import { ScenarioFailed } from "./errors.js"
import type { Scenario } from "./scenarios.js"

const textOf = (result: McpSchema.CallToolResult): string =>
  result.content.map((c) => c.type === "text" ? c.text : `[${c.type}]`).join(" ")

/** Calls a tool and fails unless it answers with `expected`. */
const callExpecting = (name: string, expected: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool({ name, arguments: {} })
    const text = textOf(result)
    if (result.isError === true || text !== expected) {
      return yield* new ScenarioFailed({ message: `tool "${name}" answered "${text}", expected "${expected}"` })
    }
    return `${name} -> ${text}`
  })

/** A user who accepts each form as shown (its defaults, nothing typed in). */
const acceptForms = Elicitation.layer((params) =>
  Effect.succeed(
    params.mode === "url" ?
      { action: "decline" as const } :
      {
        action: "accept" as const,
        content: Elicitation.applyDefaults(params.requestedSchema, {}) as Elicitation.Content
      }
  )
)

export const scenarios: Readonly<Record<string, Scenario>> = {
  // the mock refuses the first request with -32022 naming 2026-07-28; the client retries with it
  "request-metadata": {
    program: Effect.gen(function*() {
      const init = yield* (yield* McpClient.McpClient).initialized
      return `discovered ${init.serverInfo.name} (protocol ${init.protocolVersion}, ` +
        `supports ${(init.supportedVersions ?? []).join(", ")})`
    })
  },
  // input_required answered through the Elicitation layer, retried on new ids with requestState echoed
  "sep-2322-client-request-state": {
    services: () => acceptForms,
    program: Effect.gen(function*() {
      const results = [
        yield* callExpecting("test_mrtr_echo_state", "echo-state-ok"),
        // called while no other round is open: it must carry no answers or state of another request
        yield* callExpecting("test_mrtr_unrelated", "unrelated-ok"),
        yield* callExpecting("test_mrtr_no_state", "no-state-ok"),
        yield* callExpecting("test_mrtr_no_result_type", "no-result-type-test-ok")
      ]
      return results.join("; ")
    })
  }
}
