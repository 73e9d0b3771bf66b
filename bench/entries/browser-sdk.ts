/**
 * The official SDK v1 client's equivalent of `examples/installed-browser.ts`,
 * for the bundle-size metric: connect over Streamable HTTP (the browser's
 * `fetch`), list tools, call one.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

export const run = async (url: string) => {
  const client = new Client({ name: "browser-app", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const { tools } = await client.listTools()
  return client.callTool({ name: tools[0]?.name ?? "echo", arguments: {} })
}
