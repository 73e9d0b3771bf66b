/**
 * The scenarios where the client proves more than the official SDK does
 * (the suite's extensions `io.modelcontextprotocol/auth/dpop` and
 * `io.modelcontextprotocol/auth/wif`):
 *
 * - `auth/dpop`, `auth/dpop-nonce`: a person authorizes (as in `auth.ts`)
 *   with the `dpop` option on: DPoP proofs at the token endpoint and on
 *   every MCP request, `Authorization: DPoP`, and, in the nonce posture, one
 *   retry with the server's `DPoP-Nonce` at each server.
 * - `auth/wif-jwt-bearer`: a workload redeems its own JWT (the context's
 *   `valid_jwt`) with the JWT-bearer grant, as a public client.
 */
import { McpClient } from "@mcp-effect/core"
import { Authorizer, OAuthClient, TokenStore, UrlPolicy } from "@mcp-effect/oauth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { AuthServices, ConformanceContext } from "./auth.js"
import { ScenarioFailed } from "./errors.js"
import type { ScenarioTable } from "./scenario.js"

/** The mock servers listen on `http://localhost:<port>`: plain http to loopback, allowed explicitly. */
const urlPolicy = UrlPolicy.loopbackDevelopment

/** Where a native app's loopback callback server would listen; the mock redirects there. */
const redirectUri = "http://127.0.0.1:33418/callback"

const dpop = (): AuthServices =>
  OAuthClient.layerAuthorizationCode({ urlPolicy, dpop: true }).pipe(
    Layer.provide(TokenStore.layerMemory),
    Layer.provide(Authorizer.layerFollowRedirect({ redirectUri, policy: urlPolicy }))
  )

const WorkloadContext = Schema.Struct({ client_id: Schema.String, valid_jwt: Schema.String })

const workloadIdentity = (context: ConformanceContext): AuthServices =>
  Layer.unwrapEffect(
    Schema.decodeUnknown(WorkloadContext)(context).pipe(
      Effect.mapError((error) =>
        new ScenarioFailed({
          message: `MCP_CONFORMANCE_CONTEXT does not fit this scenario: ${
            ParseResult.TreeFormatter.formatErrorSync(error)
          }`
        })
      ),
      Effect.map((settings) =>
        OAuthClient.layerJwtBearer({
          urlPolicy,
          client: { clientId: settings.client_id },
          assertion: Effect.succeed(Redacted.make(settings.valid_jwt))
        }).pipe(Layer.provide(TokenStore.layerMemory))
      )
    )
  )

/** Calls the protected mock server's `test-tool` (after `tools/list`): only possible once authorized. */
const callTestTool = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const listed = yield* client.listTools
  const result = yield* client.callTool({ name: "test-tool", arguments: {} })
  return result.isError === true
    ? yield* new ScenarioFailed({ message: "test-tool answered with an error" })
    : `test-tool called (${listed.length} tools listed)`
})

export const scenarios: ScenarioTable = {
  "auth/dpop": { services: dpop, program: callTestTool },
  "auth/dpop-nonce": { services: dpop, program: callTestTool },
  "auth/wif-jwt-bearer": { services: workloadIdentity, program: callTestTool }
}
