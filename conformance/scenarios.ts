/**
 * The client scenarios of the official MCP conformance suite, as a table:
 * scenario name → the services an app would supply for it and the program it
 * runs against the scenario's server. Everything goes through the public API
 * (`McpClient`, `Elicitation`, `HttpTransport`, `@mcp-effect/oauth`, `Skills`),
 * the way an app would use it.
 *
 * This file holds the scenarios of 2025-11-25 and the auth scenarios of both
 * runners; other tables are spread in below, one import and one spread line
 * each. A key is `name` (any wire) or `name@<protocol version>` (that wire
 * only, looked up first). `run.mjs` fails every scenario a runner lists that
 * no key covers.
 *
 * The auth scenarios (`auth/*`) supply an OAuth Layer (see `auth.ts`) built
 * from the conformance context; it provides the transport's `HttpAuth` hook.
 */
import { McpClient } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Auth from "./auth.js"
import type { ScenarioTable } from "./scenario.js"
import {
  acceptFormAsShown,
  authorizationCode,
  callListedTool,
  expectFailure,
  isInsufficientScope,
  isUnauthorized,
  protectedTool
} from "./scenario.js"
// other tables: one import and one spread line each
import { scenarios as auth2026 } from "./auth2026.js"
import { scenarios as skills } from "./skills.js"

export type { ConformanceContext, Scenario, ScenarioTable } from "./scenario.js"
export { ScenarioFailed } from "./scenario.js"

const base: ScenarioTable = {
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
  // the same flow under its 0.2 name (SEP-990)
  "auth/enterprise-managed-authorization": { services: Auth.crossAppAccess, program: protectedTool }
}

export const scenarios: ScenarioTable = {
  ...base,
  ...skills,
  ...auth2026
}
