/**
 * The console's local servers: the MCP fixture (official SDK, CORS for the
 * console's origin only) with `/mcp` open and `/secure/mcp` behind OAuth, and
 * `oidc-provider` as its authorization server with the console registered as
 * a public client (`web-console`), and once more, by mistake, as a
 * confidential one (`web-console-confidential`: its token requests are
 * refused with `invalid_client`). All on 127.0.0.1.
 */
import { type McpFixture, startMcpFixture } from "../../browser/servers/mcpServer.js"
import { startAuthServer } from "../../packages/oauth/test/fixtures/authServer.js"
import { makeConsoleServer } from "./consoleServer.js"

export const clientId = "web-console"
export const confidentialClientId = "web-console-confidential"
/** Public clients of their own for the sign-in window scenarios: tokens are kept per client id, so each signs in anew. */
export const popupClientIds = ["web-console-cancel", "web-console-coop", "web-console-reopen"] as const

export const startDemoServers = async (appOrigin: string) => {
  // eslint-disable-next-line prefer-const -- read by a callback made before it is assigned
  let mcp: McpFixture | undefined
  const auth = await startAuthServer({
    resource: () => `${mcp!.origin}/secure/mcp`,
    publicClients: [clientId, ...popupClientIds].map((id) => ({
      client_id: id,
      redirect_uris: [`${appOrigin}/oauth/callback`]
    })),
    confidentialBrowserClients: [{ client_id: confidentialClientId, redirect_uris: [`${appOrigin}/oauth/callback`] }]
  })
  mcp = await startMcpFixture({
    pageOrigin: appOrigin,
    issuer: () => auth.issuer,
    introspection: auth.introspection,
    makeServer: makeConsoleServer
  })
  return {
    mcp,
    auth,
    close: async () => {
      await mcp.close()
      await auth.close()
    }
  }
}
