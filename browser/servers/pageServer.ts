/**
 * The page's origin: one HTML page (served at every path, so `/`, the popup
 * callback and the redirect callback are the same app) and the client
 * bundle, on 127.0.0.1.
 */
import * as http from "node:http"
import { listenLoopback } from "../../packages/transport-http/test/fixtures/loopback.js"

export interface PageServer {
  readonly origin: string
  readonly close: () => Promise<void>
}

const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>mcp-effect browser suite</title>
<link rel="icon" href="data:,"></head>
<body><button id="go">go</button><pre id="out"></pre>
<script type="module" src="/bundle.js"></script></body></html>`

export const startPageServer = async (bundle: string): Promise<PageServer> => {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    if (path === "/bundle.js") {
      return void res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" }).end(bundle)
    }
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" }).end(html)
  })
  const listening = await listenLoopback(server)
  return { origin: `http://127.0.0.1:${listening.port}`, close: listening.close }
}
