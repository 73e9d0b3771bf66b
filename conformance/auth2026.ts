/**
 * The `auth/*` scenarios of the 2026-07-28 requirement set (and the renamed
 * enterprise-managed-authorization extension) of the 0.2.0 conformance
 * runner. Each is an app using `@mcp-effect/oauth` the way `auth.ts` builds
 * it; the refusals (a wrong or missing `iss`, poisoned authorization-server
 * metadata) are the library's own checks, so the app sees
 * `McpError.Unauthorized` and gives up.
 */
import { McpClient, McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import type { AuthServices, ConformanceContext } from "./auth.js"
import * as Auth from "./auth.js"
import { ScenarioFailed } from "./errors.js"

interface AuthScenario {
  readonly services: (context: ConformanceContext) => AuthServices
  readonly program: Effect.Effect<string, McpError.McpClientError | ScenarioFailed, McpClient.McpClient>
}

/** Lists the protected mock server's tools and calls `test-tool`: only possible once authorized. */
const useProtectedTool = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools
  if (!tools.some((tool) => tool.name === "test-tool")) {
    return yield* new ScenarioFailed({ message: "the protected server does not list test-tool" })
  }
  const result = yield* client.callTool({ name: "test-tool", arguments: {} })
  return result.isError === true ? yield* new ScenarioFailed({ message: "test-tool failed" }) : "test-tool called"
})

/**
 * The authorization response or the metadata must be refused: succeeds when
 * the app ends with `Unauthorized` naming the OAuth check (`reason`), fails
 * when it got through or failed otherwise.
 */
const refusedBy = (reason: string) =>
  Effect.matchEffect(useProtectedTool, {
    onSuccess: () => new ScenarioFailed({ message: `expected an OAuth ${reason} refusal, but the tool was called` }),
    onFailure: (error) =>
      error instanceof McpError.Unauthorized && error.message.startsWith(`OAuth ${reason}:`)
        ? Effect.succeed(`refused as expected: ${error.message}`)
        : new ScenarioFailed({ message: `expected an OAuth ${reason} refusal, got ${error._tag}: ${error.message}` })
  })

const authorized: AuthScenario = { services: Auth.authorizationCode, program: useProtectedTool }
const issRefused: AuthScenario = { services: Auth.authorizationCode, program: refusedBy("Authorization") }

export const scenarios: Readonly<Record<string, AuthScenario>> = {
  // SEP-2352: the resource moves to another authorization server; the app registers there anew
  "auth/authorization-server-migration": { services: Auth.authorizationCodeRegistered, program: useProtectedTool },
  // SEP-2468 / RFC 9207: `iss` in the authorization response, compared as a plain string
  "auth/iss-supported": authorized,
  "auth/iss-not-advertised": authorized,
  "auth/iss-supported-missing": issRefused,
  "auth/iss-wrong-issuer": issRefused,
  "auth/iss-unexpected": issRefused,
  "auth/iss-normalized": issRefused,
  // RFC 8414 §3.3: metadata naming another issuer is not used
  "auth/metadata-issuer-mismatch": { services: Auth.authorizationCode, program: refusedBy("Discovery") },
  // the 0.2.0 runner's name for cross-app access (`auth/cross-app-access-complete-flow` in 0.1.16)
  "auth/enterprise-managed-authorization": { services: Auth.crossAppAccess, program: useProtectedTool }
}
