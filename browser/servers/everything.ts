/**
 * `@modelcontextprotocol/server-everything` over Streamable HTTP, the first
 * server most people try, behind a recording proxy on 127.0.0.1: every
 * request the console sends is recorded (method, path, headers, JSON body)
 * and forwarded; answers stream back as they come. `kill` stops the server
 * process (the proxy then fails requests at the network level, as a dead
 * server does); `restart` starts it again on the same port. The server binds
 * every interface: only loopback traffic is ever sent to it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import { listenLoopback } from "../../packages/transport-http/test/fixtures/loopback.js"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: unknown
  readonly at: number
}

const entry = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url)
)

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

const waitForPort = async (port: number, within = 15_000) => {
  const deadline = Date.now() + within
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`server-everything did not listen on ${port}`)
}

export const startEverything = async () => {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(process.execPath, [entry, "streamableHttp"], {
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"]
    })
    child.stderr?.resume()
    await waitForPort(port)
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      const running = child
      child = undefined
      if (running === undefined || running.exitCode !== null) return resolve()
      running.once("exit", () => resolve())
      running.kill("SIGKILL")
    })
  await start()

  const requests: Array<Recorded> = []
  /** Requests whose answer is still open (an SSE stream, a pending POST), for connection counting. */
  let open = 0
  const proxy = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      let body: unknown = undefined
      try {
        body = text === "" ? undefined : JSON.parse(text)
      } catch {
        body = text
      }
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, at: Date.now() })
      open++
      let counted = true
      const done = () => {
        if (counted) open--
        counted = false
      }
      res.on("close", done)
      const upstream = http.request({
        host: "127.0.0.1",
        port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: `127.0.0.1:${port}` }
      }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        answer.on("error", () => res.destroy())
        // the server died mid-answer: the client sees the connection drop
        answer.on("aborted", () => res.destroy())
      })
      // a dead server: fail at the network level, as a browser would see it
      upstream.on("error", () => res.destroy())
      res.on("close", () => upstream.destroy())
      upstream.end(chunks.length === 0 ? undefined : Buffer.concat(chunks))
    })
  })
  const listening = await listenLoopback(proxy)
  return {
    url: `http://127.0.0.1:${listening.port}/mcp`,
    requests,
    /** Answers still open right now (GET stream, pending POSTs). */
    open: () => open,
    kill: stop,
    restart: start,
    close: async () => {
      await listening.close()
      await stop()
    }
  }
}

export type Everything = Awaited<ReturnType<typeof startEverything>>
