/**
 * The console's local servers: the MCP fixture (official SDK, CORS for the
 * console's origin only) with `/mcp` open and `/secure/mcp` behind OAuth, and
 * `oidc-provider` as its authorization server with the console registered as
 * a public client (`web-console`). All on 127.0.0.1.
 */
import { startAuthServer } from "../../packages/oauth/test/fixtures/authServer.js"
import { type McpFixture, startMcpFixture } from "../../browser/servers/mcpServer.js"
import { makeConsoleServer } from "./consoleServer.js"

export const clientId = "web-console"

export const startDemoServers = async (appOrigin: string) => {
  // eslint-disable-next-line prefer-const -- read by a callback made before it is assigned
  let mcp: McpFixture | undefined
  const auth = await startAuthServer({
    resource: () => `${mcp!.origin}/secure/mcp`,
    publicClients: [{ client_id: clientId, redirect_uris: [`${appOrigin}/oauth/callback`] }]
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
