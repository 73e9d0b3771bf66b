/**
 * The client scenarios of the official MCP conformance suite, as a table:
 * scenario name → the services an app would supply for it and the program it
 * runs against the scenario's server. Everything goes through the public API
 * (`McpClient`, `Elicitation`, `HttpTransport`), the way an app would use it.
 *
 * The auth scenarios (`auth/*`) add entries here whose `services` supply an
 * `HttpAuth` Layer built from the conformance context.
 */
import { Elicitation, McpClient } from "@mcp-effect/core"
import type { McpError, McpSchema } from "@mcp-effect/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A check of the client program itself failed (missing tool, tool error, unexpected answer). */
export class ScenarioFailed extends Data.TaggedError("ScenarioFailed")<{ readonly message: string }> {}

/** `MCP_CONFORMANCE_CONTEXT`, parsed: credentials and settings for the auth scenarios. */
export type ConformanceContext = Readonly<Record<string, unknown>>

export interface Scenario {
  /**
   * What the app supplies for this scenario, none by default: any of
   * `McpClient.HandlerServices` (handlers for server requests, picked up by
   * `McpClient`) and `HttpAuth` (the auth hook, picked up by `HttpTransport`).
   * Both look these up as optional services, hence no requirement in the type.
   */
  readonly services?: (context: ConformanceContext) => Layer.Layer<never>
  /** Runs against the connected client; succeeds with a one-line description of what happened. */
  readonly program: Effect.Effect<string, McpError.McpClientError | ScenarioFailed, McpClient.McpClient>
}

const textOf = (result: McpSchema.CallToolResult): string =>
  result.content.map((c) => c.type === "text" ? c.text : `[${c.type}]`).join(" ")

/** Lists the tools, checks that `name` is offered, calls it, and fails on a tool error. */
const callListedTool = (name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = yield* client.listTools
    if (!tools.some((tool) => tool.name === name)) {
      return yield* new ScenarioFailed({
        message: `tool "${name}" not listed (server offers: ${tools.map((t) => t.name).join(", ") || "none"})`
      })
    }
    const result = yield* client.callTool({ name, arguments: args })
    if (result.isError === true) {
      return yield* new ScenarioFailed({ message: `tool "${name}" returned an error: ${textOf(result)}` })
    }
    return `${name} -> ${textOf(result)}`
  })

type FormContent = NonNullable<McpSchema.ElicitResult["content"]>

/**
 * A user who accepts every form as shown: nothing typed in, so the answer is
 * the form's defaults (SEP-1034). URL elicitation is declined.
 */
const acceptFormAsShown = Elicitation.layer((params) =>
  Effect.succeed(
    params.mode === "url" ?
      { action: "decline" as const } :
      {
        action: "accept" as const,
        // applyDefaults returns Record<string, unknown>; the defaults are the schema's primitive values
        content: Elicitation.applyDefaults(params.requestedSchema, {}) as FormContent
      }
  )
)

export const scenarios: Readonly<Record<string, Scenario>> = {
  initialize: {
    program: Effect.gen(function*() {
      const init = yield* (yield* McpClient.McpClient).initialized
      return `initialized with ${init.serverInfo.name} ${init.serverInfo.version} (protocol ${init.protocolVersion})`
    })
  },
  tools_call: {
    program: callListedTool("add_numbers", { a: 5, b: 3 })
  },
  "elicitation-sep1034-client-defaults": {
    services: () => acceptFormAsShown,
    program: callListedTool("test_client_elicitation_defaults", {})
  },
  "sse-retry": {
    program: callListedTool("test_reconnection", {})
  }
}
