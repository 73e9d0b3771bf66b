import { startOfficialApp } from "./servers/apps.js"

const a = await startOfficialApp("@modelcontextprotocol/server-basic-vanillajs", "http://127.0.0.1:1")
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }
  },
  "io.modelcontextprotocol/clientInfo": { name: "x", version: "1" }
}
const r = await fetch(a.url, {
  method: "POST",
  headers: {
    origin: "http://127.0.0.1:1",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "server/discover"
  },
  body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: meta } })
})
console.log(r.status, (await r.text()).slice(0, 500))
await a.close()
