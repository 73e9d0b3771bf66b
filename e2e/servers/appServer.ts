/**
 * Serves the built console (`examples/web/dist`) on 127.0.0.1; every path
 * without a file is the app's page (the OAuth callback is a route).
 */
import { readFile } from "node:fs/promises"
import * as http from "node:http"
import { extname, join, normalize } from "node:path"
import { listenLoopback } from "../../packages/transport-http/test/fixtures/loopback.js"

const types: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml"
}

export const startAppServer = async (root: string) => {
  const server = http.createServer(async (req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? "/").split("?")[0]!)).replace(/^(\.\.[/\\])+/, "")
    const file = path.startsWith("/assets/") ? join(root, path) : join(root, "index.html")
    try {
      const body = await readFile(file)
      res.writeHead(200, {
        "content-type": types[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store"
      }).end(body)
    } catch {
      res.writeHead(404).end()
    }
  })
  const listening = await listenLoopback(server)
  return { origin: `http://127.0.0.1:${listening.port}`, close: listening.close }
}
