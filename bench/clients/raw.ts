/**
 * The floor: a hand-written NDJSON JSON-RPC loop over `child_process`, with
 * no validation, no timeouts and no cancellation. Spawn, write
 * `JSON.stringify(message) + "\n"`, split stdout on newlines, match ids.
 */
import { spawn } from "node:child_process"
import { childEnv, type ServerCommand } from "../servers.js"
import { rawSubject, type Subject } from "../subject.js"

interface Waiter {
  readonly resolve: (result: unknown) => void
  readonly reject: (error: Error) => void
}

export const start = async (server: ServerCommand): Promise<Subject> => {
  const child = spawn(server.command, server.args, { stdio: ["pipe", "pipe", "inherit"], env: childEnv() })
  const waiting = new Map<number, Waiter>()
  let nextId = 1
  let buffered = ""

  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk
    let newline = buffered.indexOf("\n")
    while (newline !== -1) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      newline = buffered.indexOf("\n")
      if (line.length === 0) continue
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } }
      const waiter = message.id === undefined ? undefined : waiting.get(message.id)
      if (waiter === undefined) continue
      waiting.delete(message.id!)
      if (message.error) waiter.reject(new Error(message.error.message))
      else waiter.resolve(message.result)
    }
  })
  child.on("exit", () => {
    for (const waiter of waiting.values()) waiter.reject(new Error("the server exited"))
    waiting.clear()
  })

  const request = (method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
    })
  const notify = (method: string) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n")

  await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench-raw", version: "1.0.0" }
  })
  notify("notifications/initialized")
  return rawSubject(request, () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.stdin.end()
    }))
}
