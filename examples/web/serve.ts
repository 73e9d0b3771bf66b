/**
 * `npm run web`: the console in Vite's dev server, with the demo MCP server
 * and its authorization server, all on 127.0.0.1. Ctrl-C stops everything.
 */
import { createServer } from "vite"
import { clientId, startDemoServers } from "../../e2e/servers/demo.js"

const vite = await createServer({ configFile: new URL("./vite.config.ts", import.meta.url).pathname })
await vite.listen()
const origin = vite.resolvedUrls?.local[0]?.replace(/\/$/, "") ?? "http://127.0.0.1:5173"
const servers = await startDemoServers(origin)
console.log(`
MCP console:        ${origin}
demo MCP server:    ${servers.mcp.origin}/mcp          (Streamable HTTP, no auth)
OAuth MCP server:   ${servers.mcp.origin}/secure/mcp   (OAuth 2.1: client ID "${clientId}", scope "mcp:read")
`)
const stop = async () => {
  await servers.close()
  await vite.close()
  process.exit(0)
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
