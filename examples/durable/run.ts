// The example end to end (`npm run example:durable`): starts a redis-server and a 2026-07-28 MCP
// server (the official SDK v2 one of the interop tests) on loopback, runs `caller.ts` until the server
// asks it for a name, kills it (SIGKILL: nothing is cleaned up), then runs `answerer.ts`, which finds
// the call in Redis and answers it. Every process it starts is stopped at the end.
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
const started: Array<ChildProcess> = []

const start = (command: string, args: Array<string>, env: Record<string, string> = {}) => {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] })
  started.push(child)
  return child
}

/** Resolves with the first stdout line matching `pattern`, echoing every line. */
const line = (child: ChildProcess, pattern: RegExp, echo = true) =>
  new Promise<string>((resolve, reject) => {
    let buffer = ""
    child.stdout!.on("data", (chunk) => {
      buffer += chunk
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        const text = buffer.slice(0, i)
        buffer = buffer.slice(i + 1)
        if (echo && text.trim() !== "") console.log(text)
        if (pattern.test(text)) resolve(text)
      }
    })
    child.once("exit", (code) => reject(new Error(`${child.spawnfile} exited (${code})`)))
  })

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const tsx = (script: string, env: Record<string, string>, args: Array<string> = []) =>
  // node with tsx as a loader (one process: a kill reaches the app itself)
  start(
    process.execPath,
    ["--import", "tsx", "--conditions=@mcp-effect/source", `examples/durable/${script}`, ...args],
    env
  )

const main = async () => {
  let redisUrl = process.env.REDIS_URL
  if (redisUrl === undefined) {
    const port = await freePort()
    const redis = start("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no"
    ])
    await line(redis, /Ready to accept connections/, false)
    redisUrl = `redis://127.0.0.1:${port}`
  }
  const mcp = start("node", ["integration/interop/fixtures/sdk-v2-server.mjs", "http", "modern"])
  const { port } = JSON.parse(await line(mcp, /"port"/, false)) as { port: number }
  const env = { REDIS_URL: redisUrl, MCP_URL: `http://127.0.0.1:${port}/mcp` }

  const a = tsx("caller.ts", env)
  await line(a, /asked for a name/)
  a.kill("SIGKILL")
  console.log("(A killed while the server waits for a name)")

  const b = tsx("answerer.ts", env, ["Ada"])
  await line(b, /answering again/)
}

main().then(
  () => undefined,
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
).finally(() => {
  for (const child of started) child.kill("SIGTERM")
})
