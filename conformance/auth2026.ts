/**
 * The `auth/*` scenarios of the 2026-07-28 requirement set (and the renamed
 * enterprise-managed-authorization extension) of the 0.2.0 conformance
 * runner. Each is an app using `@mcp-effect/oauth` the way `auth.ts` builds
 * it; the refusals (a wrong or missing `iss`, poisoned authorization-server
 * metadata) are the library's own checks, so the app sees
 * `McpError.Unauthorized` and gives up.
 */
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Auth from "./auth.js"
import type { ScenarioTable } from "./scenario.js"
import { protectedTool as useProtectedTool, ScenarioFailed } from "./scenario.js"

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

const authorized = { services: Auth.authorizationCode, program: useProtectedTool }
const issRefused = { services: Auth.authorizationCode, program: refusedBy("Authorization") }

export const scenarios: ScenarioTable = {
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
  "auth/metadata-issuer-mismatch": { services: Auth.authorizationCode, program: refusedBy("Discovery") }
}
