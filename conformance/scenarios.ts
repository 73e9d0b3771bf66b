/**
 * The client scenarios of the official MCP conformance suite, as a table:
 * scenario name → the services an app would supply for it and the program it
 * runs against the scenario's server. Everything goes through the public API
 * (`McpClient`, `Elicitation`, `HttpTransport`, `@mcp-effect/oauth`), the way
 * an app would use it.
 *
 * The auth scenarios (`auth/*`) supply an OAuth Layer (see `auth.ts`) built
 * from the conformance context; it provides the transport's `HttpAuth` hook.
 */
import { Elicitation, McpClient, McpError } from "@mcp-effect/core"
import type { McpSchema } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type { AuthServices, ConformanceContext } from "./auth.js"
import * as Auth from "./auth.js"
import { ScenarioFailed } from "./errors.js"
import * as Http2026 from "./http2026.js"
import * as Modern from "./modern.js"

export type { ConformanceContext } from "./auth.js"
export { ScenarioFailed } from "./errors.js"

export interface Scenario {
  /**
   * What the app supplies for this scenario, none by default: any of
   * `McpClient.HandlerServices` (handlers for server requests, picked up by
   * `McpClient`) and `HttpAuth` (the auth hook, picked up by `HttpTransport`).
   * Both look these up as optional services, hence no output in the type;
   * the OAuth Layers use the app's `HttpClient`.
   */
  readonly services?: (context: ConformanceContext) => Layer.Layer<never> | AuthServices
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

/** The tool every protected mock server of the auth scenarios offers: listed and called once authorized. */
const protectedTool = callListedTool("test-tool", {})

type ExpectedError = McpError.Unauthorized | McpError.InsufficientScope

/**
 * For scenarios where the right behaviour is to give up: succeeds when the
 * program fails with the expected typed error, fails otherwise.
 */
const expectFailure = (
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

const isUnauthorized = (error: unknown): error is McpError.Unauthorized => error instanceof McpError.Unauthorized
const isInsufficientScope = (error: unknown): error is McpError.InsufficientScope =>
  error instanceof McpError.InsufficientScope

/** An authorization-code scenario: the person authorizes, then the protected tool is listed and called. */
const authorizationCode: Scenario = { services: Auth.authorizationCode, program: protectedTool }

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
  },
  // discovery: PRM from WWW-Authenticate or the path-based / root well-known URL; RFC 8414 and OIDC metadata
  "auth/metadata-default": authorizationCode,
  "auth/metadata-var1": authorizationCode,
  "auth/metadata-var2": authorizationCode,
  "auth/metadata-var3": authorizationCode,
  // client identity: Client ID Metadata Document, pre-registered, dynamic registration per auth method
  "auth/basic-cimd": authorizationCode,
  "auth/pre-registration": authorizationCode,
  "auth/token-endpoint-auth-basic": authorizationCode,
  "auth/token-endpoint-auth-post": authorizationCode,
  "auth/token-endpoint-auth-none": authorizationCode,
  // scope selection and step-up
  "auth/scope-from-www-authenticate": authorizationCode,
  "auth/scope-from-scopes-supported": authorizationCode,
  "auth/scope-omitted-when-undefined": authorizationCode,
  "auth/scope-step-up": authorizationCode,
  "auth/scope-retry-limit": {
    services: Auth.authorizationCode,
    program: expectFailure(protectedTool, isInsufficientScope)
  },
  // 2025-03-26 servers: no protected-resource metadata, metadata or default endpoints at the server's root
  "auth/2025-03-26-oauth-metadata-backcompat": authorizationCode,
  "auth/2025-03-26-oauth-endpoint-fallback": authorizationCode,
  // draft: resource validation, refresh tokens (SEP-2207)
  "auth/resource-mismatch": {
    services: Auth.authorizationCode,
    program: expectFailure(protectedTool, isUnauthorized)
  },
  "auth/offline-access-scope": { services: Auth.authorizationCodeRegistered, program: protectedTool },
  "auth/offline-access-not-supported": authorizationCode,
  // extensions: machine clients and enterprise-managed authorization
  "auth/client-credentials-jwt": { services: Auth.clientCredentials, program: protectedTool },
  "auth/client-credentials-basic": { services: Auth.clientCredentials, program: protectedTool },
  "auth/cross-app-access-complete-flow": { services: Auth.crossAppAccess, program: protectedTool },
  ...Modern.scenarios,
  ...Http2026.scenarios
}
