/**
 * What every scenario table (`scenarios.ts` and the files it spreads in)
 * shares: the `Scenario` entry and the helpers their programs use.
 */
import { Elicitation, McpClient, McpError } from "@mcp-effect/core"
import type { McpSchema } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type { AuthServices, ConformanceContext } from "./auth.js"
import * as Auth from "./auth.js"
import { ScenarioFailed } from "./errors.js"

export type { ConformanceContext } from "./auth.js"
export { ScenarioFailed } from "./errors.js"

/** A table of scenarios: `name` (any wire), or `name@<protocol version>` for one wire only (e.g. `tools_call@2026-07-28`). */
export type ScenarioTable = Readonly<Record<string, Scenario>>

export interface Scenario {
  /**
   * What the app supplies for this scenario, none by default: any of
   * `McpClient.HandlerServices` (handlers for server requests, picked up by
   * `McpClient`) and `HttpAuth` (the auth hook, picked up by `HttpTransport`).
   * Both look these up as optional services, hence no output in the type;
   * the OAuth Layers use the app's `HttpClient`.
   */
  readonly services?: (context: ConformanceContext) => Layer.Layer<never> | AuthServices
  /** Client options beyond `clientInfo` (the era or protocol version to pin, timeouts). */
  readonly client?: Partial<Omit<McpClient.Options, "clientInfo">> | undefined
  /** Runs against the connected client; succeeds with a one-line description of what happened. */
  readonly program: Effect.Effect<string, McpError.McpClientError | ScenarioFailed, McpClient.McpClient>
}

export const textOf = (result: McpSchema.CallToolResult): string =>
  result.content.map((c) => c.type === "text" ? c.text : `[${c.type}]`).join(" ")

/** Lists the tools, checks that `name` is offered, calls it, and fails on a tool error. */
export const callListedTool = (name: string, args: Record<string, unknown>) =>
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
export const acceptFormAsShown = Elicitation.layer((params) =>
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

/** The tool every protected mock server of the auth scenarios offers: listed and called once authorized. */
export const protectedTool = callListedTool("test-tool", {})

type ExpectedError = McpError.Unauthorized | McpError.InsufficientScope

/**
 * For scenarios where the right behaviour is to give up: succeeds when the
 * program fails with the expected typed error, fails otherwise.
 */
export const expectFailure = (
  program: Effect.Effect<string, McpError.McpClientError | ScenarioFailed, McpClient.McpClient>,
  expected: (error: unknown) => error is ExpectedError
) =>
  Effect.matchEffect(program, {
    onSuccess: (result) =>
      new ScenarioFailed({ message: `expected the client to give up, but it succeeded: ${result}` }),
    onFailure: (error) =>
      expected(error) ?
        Effect.succeed(`gave up as expected: ${error._tag}: ${error.message}`) :
        new ScenarioFailed({ message: `expected another error, got ${error._tag}: ${error.message}` })
  })

export const isUnauthorized = (error: unknown): error is McpError.Unauthorized => error instanceof McpError.Unauthorized
export const isInsufficientScope = (error: unknown): error is McpError.InsufficientScope =>
  error instanceof McpError.InsufficientScope

/** An authorization-code scenario: the person authorizes, then the protected tool is listed and called. */
export const authorizationCode: Scenario = { services: Auth.authorizationCode, program: protectedTool }
