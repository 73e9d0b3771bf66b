/**
 * The fixture servers: the same scripts for every client, each client with
 * its own server process (stdio) or its own sessions on one server (HTTP).
 */
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

export interface ServerCommand {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** Runs the stdio echo server with this Node, without tsx or any loader. */
export const stdioServer: ServerCommand = { command: process.execPath, args: [fixture("stdioServer.mjs")] }

/**
 * Set for every server on top of the inherited variables: the SDK server
 * warns about its many `drain` listeners under 1000 concurrent calls.
 */
export const serverEnv: Readonly<Record<string, string>> = { NODE_NO_WARNINGS: "1" }

/**
 * The environment every spawned server gets: the few variables both our
 * transport and the SDK pass by default (so no `NODE_OPTIONS` leaks in),
 * plus `serverEnv`.
 */
export const childEnv = (): Record<string, string> => {
  const env: Record<string, string> = { ...serverEnv }
  for (const name of ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

export interface HttpServer {
  readonly url: string
  readonly close: () => Promise<void>
}

/** Starts the Streamable HTTP fixture in its own process and waits for its URL. */
export const startHttpServer = (json: boolean): Promise<HttpServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture("httpServer.mjs"), ...(json ? ["--json"] : [])], {
      stdio: ["pipe", "pipe", "inherit"],
      env: childEnv()
    })
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.once("error", reject)
    const lines = createInterface({ input: child.stdout })
    lines.once("line", (line) => {
      const match = /^listening (\S+)$/.exec(line)
      if (match === null) return reject(new Error(`http fixture said: ${line}`))
      resolve({
        url: match[1]!,
        close: async () => {
          child.stdin.end()
          await exited
        }
      })
    })
  })
